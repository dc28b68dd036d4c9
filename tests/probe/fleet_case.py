#!/usr/bin/python3
"""`pdcheck probe fleet` as launchers start it, on this host over TCP.

Usage: fleet_case.py PDCHECK REPO_ROOT SCENARIO [FAKE_LIBCUDA]
Scenarios:
  slurm        4 ranks placed by SLURM_PROCID/SLURM_NTASKS, rank 0 found through
               MASTER_ADDR/MASTER_PORT: every pair verified; JSON (schema),
               text, JUnit and SVG agree.
  indexed-job  examples/fleet/indexed-job.yaml run as Kubernetes would: its
               ConfigMap's files, its container's arguments and environment, 8
               pods by JOB_COMPLETION_INDEX (the manifest's 4 made 8).
  sglang       examples/fleet/plan-sglang.yaml, 6 ranks by --rank/--size: only
               SGLang's rank pairs run, in 2 rounds.
  never-joins  4 ranks, rank 3 never started: its pairs are not run, with the
               reason; the others verify; exit 1, no hang.
  killed       rank 3 killed mid-run (SIGKILL): its pairs fail naming it; the
               others verify; exit 1.
  hung         rank 3 stopped mid-run (SIGSTOP): rank 0 gives up on it after
               --pair-timeout; the others verify; exit 1.
  mpirun       examples/fleet/mpirun.sh with -np 4 and 8, then -np 6 with one
               rank that never starts its listener and one killed mid-run
               (exit 77, skipped, where Open MPI's mpirun is not installed).
  mpi          examples/fleet/mpirun-mpi.sh (--mpi: rank, size and rank 0's
               address from MPI) with -np 4, then -np 6 with one rank that
               cannot listen and one that stops on a bad option: their pairs
               are not run and their own reasons, gathered through MPI, are in
               rank 0's report; then -np 4 with one rank that
               never starts: MPI_Init's deadline ends every rank with the reason
               (exit 77, skipped, without mpirun or pdcheck-mpi.so).
  srun         examples/fleet/srun.sbatch under a stand-in for srun and
               scontrol that start SLURM_NTASKS tasks on this host.
  refused      processes that are not of this fleet: two given rank 1 (one
               is refused), one started with another fleet size, one with
               another plan; the fleet itself verifies every pair.
  wrong-coordinator  rank 0 given a --coordinator that is not its own host:
               its own end never joins, and the report says why first.
  gpu-local    --memory cuda:local on two "hosts" of two (fake) GPUs each:
               each rank takes the GPU of its SLURM_LOCALID; a rank whose local
               rank has no GPU fails its pairs in the allocate phase.
"""
import json
import os
import random
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

import jsonschema
import yaml

pdcheck, root, scenario = sys.argv[1], sys.argv[2], sys.argv[3]
# Sanitized builds run several times slower: their CTest sets this, and every
# deadline below is multiplied by it.
scale = float(os.environ.get("PDCHECK_TEST_TIME_SCALE", "1"))


def seconds(n):
    """A deadline for pdcheck's command line, scaled."""
    return f"{n * scale:g}"
plan = os.path.join(root, "examples/fleet/plan.yaml")
schema = json.load(open(os.path.join(root, "schemas/probe-fleet.schema.json")))
work = tempfile.mkdtemp(prefix="pdcheck-fleet-")
problems = []


def free_port():
    """A free port below Linux's ephemeral range (32768-60999): rank 0 binds it
    a moment after this returns, and the many connections the fleets of the
    tests running beside this one open never take such a port meanwhile."""
    rng = random.Random(os.getpid() ^ time.monotonic_ns())
    while True:
        port = rng.randrange(20000, 32768)
        with socket.socket() as s:
            try:
                s.bind(("0.0.0.0", port))
                return port
            except OSError:
                continue


def start(rank_env, args, name):
    env = dict(os.environ)
    env.update(rank_env)
    out = open(os.path.join(work, f"{name}.out"), "w")
    err = open(os.path.join(work, f"{name}.err"), "w")
    return subprocess.Popen([pdcheck, "probe", "fleet"] + args, env=env, stdout=out, stderr=err, cwd=work)


def read(name):
    with open(os.path.join(work, name)) as f:
        return f.read()


def wait_all(procs, limit):
    deadline = time.monotonic() + limit * scale
    codes = []
    for p in procs:
        try:
            codes.append(p.wait(timeout=max(0.1, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            p.kill()
            codes.append("hung")
    return codes


def expect(cond, what):
    if not cond:
        problems.append(what)


def rank0_json(name="rank0.out"):
    doc = json.loads(read(name))
    jsonschema.validate(doc, schema)
    return doc


def outcomes(doc):
    return {(p["prefill"], p["decode"]): p for p in doc["pairs"]}


def expect_only_rank_failed(doc, bad, reason_ok, outcomes_ok=("failed", "not-run"), good=(2,)):
    """Both prefill ranks (0, 1) verified their pairs with the `good` decode
    ranks; their pairs with decode rank `bad` ended in one of `outcomes_ok`
    with a reason reason_ok accepts."""
    pairs = outcomes(doc)
    for p in (0, 1):
        for d in good:
            expect(pairs[(p, d)]["outcome"] == "verified", f"{p}->{d}: {pairs[(p, d)]}")
        expect(pairs[(p, bad)]["outcome"] in outcomes_ok and reason_ok(pairs[(p, bad)]["reason"]),
               f"{p}->{bad}: {pairs[(p, bad)]}")


def common(port, *extra, timeout=5, host="127.0.0.1"):
    return ["--transport", "tcp", "--timeout", seconds(timeout), "--format", "json",
            "--coordinator", f"{host}:{port}"] + list(extra)


def run_env_fleet(size, env_of, args, limit=240, skip=(), on_start=None):
    procs = []
    for r in range(size):
        if r in skip:
            continue
        procs.append(start(env_of(r), args, f"rank{r}"))
    if on_start:
        on_start(dict(zip([r for r in range(size) if r not in skip], procs)))
    return wait_all(procs, limit)


def slurm():
    port = free_port()
    codes = run_env_fleet(4, lambda r: {"SLURM_PROCID": str(r), "SLURM_NTASKS": "4", "SLURM_LOCALID": str(r),
                                        "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)},
                          [plan, "--transport", "tcp", "--timeout", seconds(5), "--format", "json",
                           "--output", "text=fleet.txt", "--output", "junit=fleet.xml", "--output", "svg=fleet.svg",
                           "--output", "html=fleet.html"])
    expect(codes == [0, 0, 0, 0], f"exit codes {codes}")
    doc = rank0_json()
    expect(doc["verified"] and doc["counts"] == {"pairs": 4, "verified": 4, "findings": 0, "failed": 0, "not_run": 0},
           f"counts {doc['counts']}")
    expect(doc["launcher"] == "Slurm (SLURM_PROCID)", f"launcher {doc['launcher']}")
    expect(doc["coordinator"] == f"127.0.0.1:{port}", f"coordinator {doc['coordinator']}")
    expect(doc["rounds"] == 2, f"rounds {doc['rounds']}")
    expect(all(p["bytes"] > 0 and p["wrong_bytes"] == 0 for p in doc["pairs"]), "a pair moved no bytes")
    for r in (1, 2, 3):
        expect(read(f"rank{r}.out") == "", f"rank {r} wrote to standard output")
        expect(read(f"rank{r}.err") == f"pdcheck probe fleet: rank {r}: the fleet is done: 4 of 4 pairs verified\n",
               f"rank {r} said {read(f'rank{r}.err')!r}")
    text = read("fleet.txt")
    expect("4 verified" in text and "prefill \\ decode" in text, "text report:\n" + text)
    suite = ET.fromstring(read("fleet.xml"))
    cases = suite.findall(".//testcase")
    expect(len(cases) == 4 and not suite.findall(".//failure"), "JUnit: " + read("fleet.xml"))
    expect(sorted(c.get("name") for c in cases) ==
           ["prefill 0 -> decode 2", "prefill 0 -> decode 3", "prefill 1 -> decode 2", "prefill 1 -> decode 3"],
           "JUnit names")
    html = read("fleet.html")
    expect(html.startswith("<!DOCTYPE html>") and "<title>pdcheck probe fleet: 4 of 4 pairs verified</title>" in html,
           "HTML page")
    svg = ET.fromstring(read("fleet.svg"))
    cells = [e for e in svg.iter() if e.get("class") == "cell"]
    expect(len(cells) == 4 and all(c.get("data-outcome") == "verified" for c in cells), "SVG cells")


def indexed_job():
    docs = list(yaml.safe_load_all(open(os.path.join(root, "examples/fleet/indexed-job.yaml"))))
    config = next(d for d in docs if d["kind"] == "ConfigMap")
    job = next(d for d in docs if d["kind"] == "Job")
    mount = os.path.join(work, "etc-pdcheck")
    os.makedirs(mount)
    for name, text in config["data"].items():
        with open(os.path.join(mount, name), "w") as f:
            f.write(text)
    container = job["spec"]["template"]["spec"]["containers"][0]
    expect(container["command"] == ["pdcheck"], "the Job runs pdcheck")
    port = free_port()
    size = 8
    args = [a.replace("/etc/pdcheck", mount).replace("pdcheck-fleet-0.pdcheck-fleet:29650", f"127.0.0.1:{port}")
            for a in container["args"]]
    expect(args[:2] == ["probe", "fleet"], f"arguments {args}")
    # auto would choose TCP here anyway (no RDMA device); said outright, the run does not depend on it.
    args = [("tcp" if prev == "--transport" else a) for prev, a in zip([""] + args, args)][2:]
    args += ["--timeout", seconds(5), "--format", "json"]
    env = {e["name"]: e["value"] for e in container["env"]}
    expect(env.get("PDCHECK_FLEET_SIZE") == str(job["spec"]["completions"]), "PDCHECK_FLEET_SIZE is the completions")
    env["PDCHECK_FLEET_SIZE"] = str(size)
    codes = run_env_fleet(size, lambda r: dict(env, JOB_COMPLETION_INDEX=str(r)), args, limit=400)
    expect(codes == [0] * size, f"exit codes {codes}")
    doc = rank0_json()
    expect(doc["counts"]["verified"] == 12 and doc["verified"], f"counts {doc['counts']}")
    expect(doc["rounds"] == 6, f"rounds {doc['rounds']}")
    expect(doc["launcher"] == "Kubernetes Indexed Job (JOB_COMPLETION_INDEX)", doc["launcher"])


def sglang_pairs():
    port = free_port()
    procs = [start({}, [os.path.join(root, "examples/fleet/plan-sglang.yaml"), "--rank", str(r), "--size", "6"] +
                   common(port), f"rank{r}") for r in range(6)]
    codes = wait_all(procs, 240)
    expect(codes == [0] * 6, f"exit codes {codes}")
    doc = rank0_json()
    expect(sorted(outcomes(doc)) == [(0, 2), (0, 3), (1, 4), (1, 5)], f"pairs {sorted(outcomes(doc))}")
    expect(doc["pairing"] == "sglang" and doc["rounds"] == 2, f"{doc['pairing']} {doc['rounds']}")


def never_joins():
    port = free_port()
    t0 = time.monotonic()
    codes = run_env_fleet(4, lambda r: {"SLURM_PROCID": str(r), "SLURM_NTASKS": "4"},
                          [plan] + common(port, "--join-timeout", seconds(3)), skip={3})
    expect(codes == [1, 1, 1], f"exit codes {codes}")
    expect(time.monotonic() - t0 < 60 * scale, "took too long")
    doc = rank0_json()
    expect_only_rank_failed(doc, 3, lambda r: r == f"rank 3 never joined the fleet (waited {seconds(3)} s)",
                            outcomes_ok=("not-run",))
    rank3 = next(r for r in doc["ranks"] if r["rank"] == 3)
    expect(not rank3["joined"], "rank 3 joined")


def sockets(pid):
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            count += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except OSError:
            pass
    return count


def wait_in_pair(proc, limit=120):
    """Until `proc` runs a pair: waiting, a rank holds two sockets (its probe
    listener and its connection to rank 0); in a pair, also the pair's
    connection and its data transport's."""
    deadline = time.monotonic() + limit * scale
    while sockets(proc.pid) < 4:
        if time.monotonic() > deadline or proc.poll() is not None:
            problems.append("rank 3 never started a pair")
            return
        time.sleep(0.02)


def stop_rank3_mid_run(sig, extra, timeout=5):
    port = free_port()
    t0 = time.monotonic()
    # Rank 3's pairs are long (the decode end sets the number of requests: 100 x
    # 2, seconds), the others' short, so that rank 3 is struck in the middle of one.
    args = [plan] + common(port, *extra, timeout=timeout)
    procs = [start({"SLURM_PROCID": str(r), "SLURM_NTASKS": "4"},
                   args + (["--iterations", "100"] if r == 3 else []), f"rank{r}") for r in range(4)]
    wait_in_pair(procs[3])
    procs[3].send_signal(sig)
    codes = wait_all(procs[:3], 300)
    procs[3].kill()
    procs[3].wait()
    expect(codes == [1, 1, 1], f"exit codes {codes}")
    expect(time.monotonic() - t0 < 280 * scale, "took too long")
    doc = rank0_json()
    expect_only_rank_failed(doc, 3, lambda r: "rank 3" in r)
    rank3 = next(r for r in doc["ranks"] if r["rank"] == 3)
    expect(rank3["joined"] and rank3["left"], f"rank 3: {rank3}")
    return rank3["left"] or ""


def killed():
    left = stop_rank3_mid_run(signal.SIGKILL, [])
    expect(left.startswith("lost during round 1"), f"rank 3 left: {left}")


def hung():
    # Far longer than a healthy pair of the round takes, so that only rank 3 is called hung.
    pair_timeout = seconds(20)
    left = stop_rank3_mid_run(signal.SIGSTOP, ["--pair-timeout", pair_timeout], timeout=5)
    expect(left == f"sent no result within {pair_timeout} s of round 1 (hung?)", f"rank 3 left: {left}")


def mpirun_env(*modules):
    """The environment of an mpirun on this host: pdcheck (and its modules) on
    PATH, launched without ssh, MPI's own traffic on loopback and shared memory."""
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir)
    for f in (pdcheck,) + modules:
        os.symlink(f, os.path.join(bindir, os.path.basename(f)))
    return dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], TRANSPORT="tcp",
                MPIRUN_FLAGS="--allow-run-as-root --oversubscribe",
                # one host: launch without ssh (Debian installs openmpi-bin without it when recommends are off)
                OMPI_MCA_plm="isolated",
                OMPI_MCA_btl="self,vader,tcp", OMPI_MCA_btl_tcp_if_include="lo", OMPI_MCA_oob_tcp_if_include="lo")


def run_example(script, env, np, verified, placed_by):
    """examples/fleet/SCRIPT at -np NP: every pair verified, and the JUnit file agrees."""
    run = subprocess.run(["sh", os.path.join(root, "examples/fleet", script)],
                         env=dict(env, HOSTS=f"localhost:{np}", NP=str(np)), cwd=work, capture_output=True,
                         text=True, timeout=400 * scale)
    expect(run.returncode == 0, f"{script} -np {np}: exit {run.returncode}\n{run.stdout}\n{run.stderr}")
    expect(f"{verified} in " in run.stdout and f"· {verified} verified" in run.stdout,
           f"{script} -np {np}: {run.stdout}\n{run.stderr}")
    expect(placed_by in run.stdout, f"{script}: placed by {placed_by}: {run.stdout}")
    suite = ET.fromstring(read("fleet-junit.xml"))
    expect(len(suite.findall(".//testcase")) == verified and not suite.findall(".//failure"), f"{script} JUnit")


def run_wrapped(env, np, wrapper_body, args, label):
    """mpirun -np NP of `pdcheck probe fleet` with ranks 0-1 prefill and the rest
    decode, each rank started by a shell wrapper; rank 0's JSON (exit 1: some
    pair not verified), or None with the problem recorded."""
    plan_path = os.path.join(work, f"plan{np}.yaml")
    with open(plan_path, "w") as f:
        f.write(f"prefill: {{side: {root}/examples/pairs/hetero-tp-scatter-works/prefill.yaml, ranks: 0-1}}\n"
                f"decode: {{side: {root}/examples/pairs/hetero-tp-scatter-works/decode.yaml, ranks: rest}}\n")
    wrapper = os.path.join(work, "rank.sh")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\n" + wrapper_body)
    os.chmod(wrapper, stat.S_IRWXU)
    run = subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(np), wrapper, pdcheck,
                          "probe", "fleet", plan_path] + args,
                         env=env, cwd=work, capture_output=True, text=True, timeout=400 * scale)
    expect(run.returncode == 1, f"{label}: mpirun exit {run.returncode}\n{run.stderr[-3000:]}")
    try:
        doc = json.loads(run.stdout)
    except json.JSONDecodeError:
        problems.append(f"{label}: no report\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}")
        return None
    jsonschema.validate(doc, schema)
    return doc


def mpirun():
    if shutil.which("mpirun") is None:
        print("skipped: Open MPI's mpirun is not installed (Debian: openmpi-bin)")
        sys.exit(77)
    env = mpirun_env()
    for np in (4, 8):
        env["COORDINATOR"] = f"127.0.0.1:{free_port()}"
        run_example("mpirun.sh", env, np, 2 * (np - 2), "Open MPI (OMPI_COMM_WORLD_RANK)")

    # Six ranks: rank 4 never starts its listener (its process exits at once)
    # and rank 5 is killed in the middle of its first pair; each wrapped so
    # that mpirun itself sees a clean exit.
    doc = run_wrapped(env, 6, """case "$OMPI_COMM_WORLD_RANK" in
  4) exit 0 ;;
  5) # a long pair (the decode end sets the number of requests), struck once it has begun:
     # waiting, a rank holds two sockets; in a pair, also the pair's and its data transport's
     "$@" --iterations 100 & pid=$!
     while [ -d /proc/$pid ] && [ "$(ls -l /proc/$pid/fd 2>/dev/null | grep -c socket:)" -lt 4 ]; do sleep 0.02; done
     kill -9 $pid; exit 0 ;;
  *) exec "$@" ;;
esac
""", common(free_port(), "--join-timeout", seconds(10)), "mpirun -np 6")
    if doc is not None:
        expect_only_rank_failed(doc, 4, lambda r: r == f"rank 4 never joined the fleet (waited {seconds(10)} s)",
                                outcomes_ok=("not-run",), good=(2, 3))
        expect_only_rank_failed(doc, 5, lambda r: "rank 5" in r, good=())


def mpi():
    module = os.path.join(os.path.dirname(pdcheck), "pdcheck-mpi.so")
    if shutil.which("mpirun") is None or not os.path.exists(module):
        print("skipped: needs Open MPI's mpirun and pdcheck-mpi.so (built where libopenmpi-dev is installed)")
        sys.exit(77)
    env = mpirun_env(module)
    run_example("mpirun-mpi.sh", env, 4, 4, "ranks (MPI (Open MPI")

    # Six ranks: rank 4 cannot listen (an address not of this host) and rank 5
    # stops on a bad --listen before the exchange; neither joins, and each
    # tells rank 0 why through MPI (rank 5 still takes part in the broadcast
    # and leaves MPI, or Open MPI would end the job before rank 0 reports).
    # Rank 5's own --join-timeout is far shorter than the fleet lasts (rank 0
    # waits 40 s for it alone): it must wait in MPI_Finalize as long as the
    # fleet can last, not its own join and the gather's 15 s (30 s).
    # (--join-timeout also bounds MPI_Init, which took over 5 s on a loaded
    # fresh host: 15 s leaves room.)
    join, short_join = seconds(40), seconds(15)
    doc = run_wrapped(env, 6, f"""case "$OMPI_COMM_WORLD_RANK" in
  4) "$@" --listen 203.0.113.1:0 --join-timeout {join}; exit 0 ;;
  5) "$@" --listen nonsense --join-timeout {short_join}; exit 0 ;;
  *) exec "$@" --join-timeout {join} ;;
esac
""", ["--mpi", "--transport", "tcp", "--timeout", seconds(5), "--format", "json"], "mpirun -np 6 --mpi")
    if doc is not None:
        expect(doc["launcher"].startswith("MPI (Open MPI"), f"launcher {doc['launcher']}")
        for bad in (4, 5):
            expect_only_rank_failed(doc, bad,
                                    lambda r: r == f"rank {bad} never joined the fleet (waited {join} s)",
                                    outcomes_ok=("not-run",), good=(2, 3))
        expect(any(n.startswith("rank 4: handshake: cannot listen on 203.0.113.1:0: ") for n in doc["notes"]),
               f"rank 4's own reason in the notes: {doc['notes']}")
        expect("rank 5: --listen: expected HOST:PORT, got 'nonsense'" in doc["notes"],
               f"rank 5's own reason in the notes: {doc['notes']}")

    # A rank that never starts: MPI_Init waits for it, and every rank that
    # did start gives up at --join-timeout with the reason (no hang).
    wrapper = os.path.join(work, "rank.sh")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\n[ "$OMPI_COMM_WORLD_RANK" = 3 ] && exit 0\nexec "$@"\n')
    run = subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "4", wrapper, pdcheck, "probe",
                          "fleet", plan, "--mpi", "--transport", "tcp", "--join-timeout", seconds(5)],
                         env=env, cwd=work, capture_output=True, text=True, timeout=400 * scale)
    expect(run.returncode != 0, "mpirun --mpi with a rank that never started: exit 0")
    expect(f"pdcheck: cannot run: --mpi: MPI_Init did not finish within {seconds(5)} s (it waits for every rank of "
           "the job to start): run without --mpi (rank and size from the launcher's environment, --coordinator) to "
           "probe the ranks that did start\n" in run.stderr, f"MPI_Init's deadline: {run.stderr}")


def srun():
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir)
    os.symlink(pdcheck, os.path.join(bindir, "pdcheck"))
    with open(os.path.join(bindir, "scontrol"), "w") as f:
        f.write("#!/bin/sh\n# stand-in: `scontrol show hostnames LIST`\necho localhost\n")
    with open(os.path.join(bindir, "srun"), "w") as f:
        f.write("#!/bin/sh\n# stand-in: SLURM_NTASKS tasks of the command on this host\n"
                "i=0; pids=''\n"
                "while [ $i -lt $SLURM_NTASKS ]; do SLURM_PROCID=$i SLURM_LOCALID=$i \"$@\" & pids=\"$pids $!\"; "
                "i=$((i + 1)); done\n"
                "rc=0; for p in $pids; do wait $p || rc=1; done; exit $rc\n")
    for name in ("scontrol", "srun"):
        os.chmod(os.path.join(bindir, name), stat.S_IRWXU)
    port = free_port()
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], SLURM_NTASKS="4",
               SLURM_JOB_NODELIST="localhost", COORDINATOR=f"127.0.0.1:{port}", TRANSPORT="tcp")
    # The batch script names the plan relative to the repository, as sbatch runs it from there.
    os.symlink(os.path.join(root, "examples"), os.path.join(work, "examples"))
    run = subprocess.run(["bash", os.path.join(root, "examples/fleet/srun.sbatch")], env=env, cwd=work,
                         capture_output=True, text=True, timeout=400 * scale)
    expect(run.returncode == 0, f"srun.sbatch: exit {run.returncode}\n{run.stdout}\n{run.stderr}")
    expect("Slurm (SLURM_PROCID)" in run.stdout and "· 4 verified" in run.stdout, run.stdout)
    for name in ("fleet-junit.xml", "fleet.svg"):
        expect(os.path.exists(os.path.join(work, name)), f"srun.sbatch wrote no {name}")


def refused():
    port = free_port()
    other_plan = os.path.join(work, "other-plan.yaml")
    with open(other_plan, "w") as f:
        f.write(f"prefill: {{side: {root}/examples/pairs/hetero-tp-scatter-works/prefill.yaml, ranks: 0-1}}\n"
                f"decode: {{side: {root}/examples/pairs/hetero-tp-scatter-works/decode.yaml, ranks: rest}}\n"
                "pairs: [[0, 2]]\n")
    args = common(port, "--join-timeout", seconds(60))
    ranks = {r: start({}, [plan, "--rank", str(r), "--size", "4"] + args, f"rank{r}") for r in (0, 1, 2)}
    twin = start({}, [plan, "--rank", "1", "--size", "4"] + args, "twin1")
    bigger = start({}, [plan, "--rank", "2", "--size", "5"] + args, "size5")
    # Another plan under rank 3's number, refused before the real rank 3 starts.
    other = start({}, [other_plan, "--rank", "3", "--size", "4"] + args, "other")
    expect(wait_all([other], 120) == [3], "another plan was not refused")
    ranks[3] = start({}, [plan, "--rank", "3", "--size", "4"] + args, "rank3")
    codes = wait_all([ranks[r] for r in range(4)] + [twin, bigger], 240)
    expect(codes[0] == 0 and codes[2:4] == [0, 0] and codes[5] == 3, f"exit codes {codes}")
    expect(sorted([codes[1], codes[4]]) == [0, 3], f"rank 1 and its twin: {codes[1]}, {codes[4]}")
    refused_twin = "rank1" if codes[1] == 3 else "twin1"
    expect(read(f"{refused_twin}.err") == "pdcheck probe fleet: rank 1: rank 0 refused this rank: rank 1 has already "
           "joined: two processes were given the same rank\n", f"twin: {read(refused_twin + '.err')!r}")
    expect(read("size5.err") == "pdcheck probe fleet: rank 2: rank 0 refused this rank: rank 2 was started in a "
           "fleet of 5 ranks, rank 0 in one of 4\n", f"size 5: {read('size5.err')!r}")
    other_err = read("other.err")
    expect(other_err.startswith("pdcheck probe fleet: rank 3: rank 0 refused this rank: rank 3 runs a different plan "
                                "(digest ") and other_err.endswith("): give every rank the same plan and side files\n"),
           f"other plan: {other_err!r}")
    doc = rank0_json()
    expect(doc["verified"] and doc["counts"]["verified"] == 4, f"counts {doc['counts']}")


def wrong_coordinator():
    port = free_port()
    args = [plan, "--join-timeout", seconds(3)]
    # 192.0.2.1 (TEST-NET-1) is no host's: rank 0 listens on the port all the
    # same, and the other ranks reach it at 127.0.0.1.
    procs = [start({"SLURM_PROCID": str(r), "SLURM_NTASKS": "4"},
                   args + common(port, host="127.0.0.1" if r else "192.0.2.1"), f"rank{r}") for r in range(4)]
    codes = wait_all(procs, 120)
    expect(codes == [1, 1, 1, 1], f"exit codes {codes}")
    doc = rank0_json()
    expect(len(doc["notes"]) == 2 and doc["notes"][0].startswith("rank 0: cannot reach the coordinator (rank 0) at "
                                                                 f"192.0.2.1:{port}: ") and
           doc["notes"][1] == f"--coordinator 192.0.2.1:{port} does not reach rank 0's own host: give the address of "
           "the host the launcher starts rank 0 on", f"notes {doc['notes']}")
    pairs = outcomes(doc)
    expect(all(pairs[(0, d)]["reason"] == f"rank 0 never joined the fleet (waited {seconds(3)} s)" for d in (2, 3)),
           f"rank 0's pairs: {pairs[(0, 2)]}, {pairs[(0, 3)]}")
    expect(pairs[(1, 2)]["outcome"] == "verified" and pairs[(1, 3)]["outcome"] == "verified", "rank 1's pairs")


def gpu_local():
    fake_cuda = sys.argv[4]
    port = free_port()
    # Ranks 0 and 2 are local rank 0 of their host, 1 and 3 local rank 1; rank 3
    # is told it is local rank 2 of a host with two GPUs.
    local = {0: 0, 1: 1, 2: 0, 3: 2}
    codes = run_env_fleet(4, lambda r: {"SLURM_PROCID": str(r), "SLURM_NTASKS": "4", "SLURM_LOCALID": str(local[r]),
                                        "PDCHECK_CUDA_LIBRARY": fake_cuda, "FAKE_CUDA_DEVICES": "2"},
                          # 15 s: on a loaded fresh host a pair's handshake took over 5 s
                          [plan, "--memory", "cuda:local"] + common(port, timeout=15))
    expect(codes == [1, 1, 1, 1], f"exit codes {codes}")
    doc = rank0_json()
    expect(doc["memory"] == "cuda:0", f"rank 0 memory {doc['memory']}")
    expect([r["memory"] for r in doc["ranks"]] == ["cuda:0", "cuda:1", "cuda:0", "cuda:2"],
           f"ranks' memory {[r['memory'] for r in doc['ranks']]}")
    expect_only_rank_failed(doc, 3, lambda r: r == "decode: --memory cuda:2: the CUDA driver sees 2 GPUs (cuda:0 to cuda:1)",
                            outcomes_ok=("failed",))
    expect(all(outcomes(doc)[(p, 3)]["phase"] == "allocate" for p in (0, 1)), "rank 3's pairs failed in allocate")


try:
    {"gpu-local": gpu_local, "refused": refused, "wrong-coordinator": wrong_coordinator, "slurm": slurm, "indexed-job": indexed_job, "sglang": sglang_pairs, "never-joins": never_joins,
     "killed": killed, "hung": hung, "mpirun": mpirun, "mpi": mpi, "srun": srun}[scenario]()
finally:
    if problems:
        print("\n".join(problems))
        for name in sorted(os.listdir(work)):
            if name.endswith(".err"):
                print(f"--- {name}\n{read(name)}")
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if problems else 0)
