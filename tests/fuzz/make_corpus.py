#!/usr/bin/env python3
"""Writes the seed corpora in corpus/<target>/: valid messages of every backend
and generation, in the fuzz input format of fuzz_common.hpp (each frame a
little-endian u16 length and its bytes; transfer_info inputs start with one
byte choosing the backend: 0 mooncake, 1 mori, 2 nixl).

Built on ../../examples/captures/make_examples.py, whose encoders follow
SGLang's byte layouts. Run: python3 tests/fuzz/make_corpus.py
"""

import hashlib
import importlib.util
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples", "captures")

spec = importlib.util.spec_from_file_location("make_examples", os.path.join(EXAMPLES, "make_examples.py"))
ex = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ex)

ascii_int, native, int_lists = ex.ascii_int, ex.native, ex.int_lists


GENERATED = ["int_lists", "mooncake_registration", "mori_registration", "nixl_registration", "transfer_info",
             "launch_args", "shell_script", "http_answers", "log_scan", "side_file", "manifest", "model_config", "pcap", "probe_messages"]


def msgpack_array(n):
    return bytes([0x90 | n]) if n < 16 else b"\xdc" + struct.pack(">H", n)


def msgpack_bin(b):
    return b"\xc4" + bytes([len(b)]) + b


def desc_list(tags):
    if not tags:
        return b""
    return msgpack_array(len(tags)) + b"".join(msgpack_bin(t) for t in tags)


def nested_desc_list(components):
    if not components:
        return b""
    return msgpack_array(len(components)) + b"".join(
        msgpack_array(len(c)) + b"".join(msgpack_bin(t) for t in c) for c in components)


def frames_input(frames, prefix=b""):
    return prefix + b"".join(struct.pack("<H", len(f)) + f for f in frames)


def write(target, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(folder, name), "wb") as out:
        out.write(data)


def main():
    # Generated seeds only: found inputs committed as regression-* files (and
    # the corpora of targets this script does not write) stay.
    for target in GENERATED:
        folder = os.path.join(HERE, "corpus", target)
        for name in os.listdir(folder) if os.path.isdir(folder) else []:
            if not name.startswith("regression-"):
                os.remove(os.path.join(folder, name))
    examples = {name: frames for name, _, frames in ex.examples()}
    comp = examples["qwen3-next-tp2-rank1-mooncake-components.json"]
    flat = examples["qwen3-next-tp2-rank1-mooncake-flat.json"]
    nixl = examples["qwen3-next-tp2-rank1-nixl-components.json"]
    mori_ti = examples["mori-transfer-info-two-state-indices.json"]

    # pack_int_lists frames.
    for lists, fmt in [([], "Q"), ([[]], "I"), ([[1, 2], [3]], "I"), ([[0x7F3A40000000]], "Q"), ([[-1, 7]], "i")]:
        write("int_lists", int_lists(lists, fmt))
    for frame in comp[6], comp[10], comp[11], comp[13], flat[6]:
        write("int_lists", frame)

    # Mooncake registrations, gen-0 to gen-3.
    layouts = json.dumps({"kv": {"block_bytes": 4096, "rows_per_block": 1, "tensors": []},
                          "state": {"block_bytes": 77266944, "rows_per_block": 1, "tensors": []}}).encode()
    for frames in (flat[:10], flat, comp, comp + [native("Q", [512] * 24), layouts], comp + [b"", b""]):
        write("mooncake_registration", frames_input(frames))

    # Mori registrations, flat and per-component.
    head = [b"MoriMsgGuard", b"None", ex.IP.encode(), ascii_int(ex.PORT), b"engine-desc-blob",
            desc_list([b"kv%d" % i for i in range(4)]), desc_list([b"aux0"])]
    ranks = [ascii_int(1), ascii_int(2), ascii_int(1), ascii_int(ex.KV_ITEM)]
    write("mori_registration", frames_input(
        head + [nested_desc_list([[b"s%d" % i for i in range(6)]])] + ranks +
        [int_lists([[24576] * 3 + [1048576] * 3], "I"), int_lists([[4096] * 3 + [16] * 3], "I")]))
    write("mori_registration", frames_input(
        head + [desc_list([b"s%d" % i for i in range(6)])] + ranks +
        [native("I", [24576] * 3 + [1048576] * 3), native("I", [4096] * 3 + [16] * 3)]))
    write("mori_registration", frames_input(head + [b""] + ranks + [b"", b""]))

    # NIXL registrations: components (the example), flat and pre-dims.
    nixl_flat = nixl[:8] + [native("Q", ex.STATE_PTRS)] + nixl[9:13] + [
        native("I", ex.STATE_LENS), native("I", ex.STATE_DIMS), b"", b""]
    for frames in (nixl, nixl_flat, nixl_flat[:13]):
        write("nixl_registration", frames_input(frames))

    # TransferInfo of each backend, regular and dummy.
    mc = [ascii_int(99), ex.IP.encode(), ascii_int(ex.PORT), ex.SESSION.encode(), struct.pack("<2i", 5, 6),
          ascii_int(3)]
    write("transfer_info", frames_input(mc + [int_lists([[17]], "i"), b"1", b"0", b""], b"\x00"))
    write("transfer_info", frames_input(mc[:4] + [b"", b"", b"", b"2", b"0", b""], b"\x00"))
    write("transfer_info", frames_input(mc + [struct.pack("<i", 17), b"1"], b"\x00"))
    write("transfer_info", frames_input(mori_ti, b"\x01"))
    write("transfer_info", frames_input(mori_ti[:6] + [b"", struct.pack("<i", 17), b"1"], b"\x01"))
    nx = [b"NixlMsgGuard", ascii_int(99), ex.IP.encode(), ascii_int(ex.PORT), b"agent", struct.pack("<2i", 5, 6),
          ascii_int(3), ascii_int(1)]
    write("transfer_info", frames_input(nx + [int_lists([[17]], "i"), b"0", b"0", b"gen-7f"], b"\x02"))
    write("transfer_info", frames_input(nx + [struct.pack("<i", 17)], b"\x02"))

    # Capture files: the examples as written.
    for name in sorted(os.listdir(EXAMPLES)):
        if name.endswith(".json"):
            with open(os.path.join(EXAMPLES, name), "rb") as f:
                write("capture_json", f.read())

    probe_seeds()
    text_seeds()


def probe_side(profile, model, args):
    return {"profile": profile, "model": model, "args": args, "env": {}}


def probe_seeds():
    # A hello's side as side_to_json writes it (first byte 0: read by the
    # prefill end, 1: by the decode end), and a TransferInfo (2).
    lfm2 = {"name": "lfm2", "source": "seed", "architecture": "Lfm2ForCausalLM", "model_type": "lfm2", "family": 3,
            "num_hidden_layers": 3, "state_layer_ids": [0, 2], "intermediate_size": 1024, "n_groups": 1,
            "num_heads": 0, "head_dim": 1024, "state_size": 0, "conv_kernel": 3, "kda_num_heads": 0,
            "kda_head_dim": 0, "kda_num_k_heads": 0, "kda_head_k_dim": 0, "config_ssm_dtype": None,
            "num_attention_heads": 16, "num_key_value_heads": 8, "num_attention_layers": 1, "hybrid_mla": False}
    gdn = dict(lfm2, name="gdn", architecture="Qwen3NextForCausalLM", model_type="qwen3_next", family=1,
               num_hidden_layers=4, state_layer_ids=[0, 1, 2], intermediate_size=4096, n_groups=16, num_heads=32,
               head_dim=128, state_size=128, conv_kernel=4, config_ssm_dtype="float32", confidence="high")
    zaya = dict(lfm2, name="zaya", architecture="ZayaForCausalLM", model_type="zaya", family=6,
                num_hidden_layers=4, state_layer_ids=[0, 2], intermediate_size=1280, n_groups=0, num_heads=0,
                head_dim=0, conv_kernel=3, state_sharded_by_full_tp=True, replicated_conv_channels=2048,
                num_attention_heads=8, num_key_value_heads=2, num_attention_layers=2, confidence="medium")
    sides = [probe_side("v0.5.20", lfm2, ["--tp-size", "2", "--disaggregation-mode", "prefill"]),
             probe_side("components", gdn, ["--tp-size", "4", "--disaggregation-mode", "decode",
                                            "--disaggregation-transfer-backend", "nixl"]),
             probe_side("flat", zaya, ["--tp-size", "2", "--disaggregation-mode", "prefill"])]
    for i, side in enumerate(sides):
        write("probe_messages", bytes([i % 2]) + json.dumps(side).encode())
    info = {"type": "transfer_info", "request": 0, "room": 1000,
            "per_rank": [{"pp_rank": 0, "tp_rank": r, "state_indices": [1]} for r in range(2)]}
    write("probe_messages", b"\x02" + json.dumps(info).encode())


def read(path):
    with open(path, "rb") as f:
        return f.read()


def text_seeds():
    """Seeds of the text readers: the examples and test data as written."""
    root = os.path.join(HERE, "..", "..")
    import glob
    import yaml
    sides = sorted(glob.glob(os.path.join(root, "examples", "**", "*.yaml"), recursive=True))
    manifests = [p for p in sides if "/manifests/" in p] + sorted(
        glob.glob(os.path.join(root, "tests", "data", "manifests", "*.yaml")))
    for path in sides:
        data = read(path)
        try:
            doc = yaml.safe_load(data) if b"role:" in data else None
        except yaml.YAMLError:  # a manifest of several documents
            doc = None
        if isinstance(doc, dict) and "role" in doc:
            write("side_file", data)
            args = doc.get("args", "")
            args = " ".join(args) if isinstance(args, list) else str(args)
            for release in (0, 27, 40):  # the first byte picks the release's flag table
                write("launch_args", bytes([release]) + args.encode())
    for path in manifests:
        write("manifest", read(path))
    for path in sorted(glob.glob(os.path.join(root, "**", "models", "**", "config.json"), recursive=True)):
        if "/build" not in path:
            write("model_config", read(path))
    for path in sorted(glob.glob(os.path.join(root, "tests", "data", "capture", "*.pcap*"))):
        write("pcap", read(path))
    for path in sorted(glob.glob(os.path.join(root, "examples", "logs", "*"))):
        write("log_scan", b"\x80" + read(path)[:60000])
    # HTTP bodies: the first byte picks the reader (0 server info, 1 rank,
    # 2 URL, 3 router workers, 4 /server_info).
    for path in sorted(glob.glob(os.path.join(root, "tests", "data", "bootstrap", "**", "*"), recursive=True)):
        if os.path.isfile(path) and not path.endswith(".md"):
            write("http_answers", (b"\x01" if "rank" in os.path.basename(path) else b"\x00") + read(path))
    for url in (b"http://10.0.0.1:8998", b"[::1]:8998", b"prefill-0.svc"):
        write("http_answers", b"\x02" + url)
    for path in sorted(glob.glob(os.path.join(root, "tests", "data", "router", "*.json"))):
        write("http_answers", b"\x03" + read(path))
    for path in sorted(glob.glob(os.path.join(root, "tests", "data", "server_info", "*.json"))):
        write("http_answers", b"\x04" + read(path))
    for script in (b"python3 -m sglang.launch_server --tp $(TP) --model-path /m && echo done",
                   b"exec python -m sglang.launch_server ${ARGS} --port ${PORT:-30000} >/log 2>&1",
                   b"set -e; cd /w; TP=8 python3 -m sglang.launch_server '--tp' \"$TP\" | tee x; $$HOME"):
        write("shell_script", script)


if __name__ == "__main__":
    main()
