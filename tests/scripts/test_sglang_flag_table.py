"""Tests for scripts/sglang_flag_table.py against made-up SGLang-shaped checkouts.

Run from the repository root:
    python3 -m unittest discover -s tests/scripts -p 'test_*.py'
"""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SCRIPT = REPO / "scripts" / "sglang_flag_table.py"
FIXTURES = HERE / "fixtures"
SERVER_ARGS = "python/sglang/srt/server_args.py"
CHECKED_IN = REPO / "src" / "sglang" / "data" / "launch_flags" / "main.tsv"
SHA = "0123456789abcdef0123456789abcdef01234567"
PREFIX = "sglang_flag_table: warning: "


def run(checkout, *args):
    return subprocess.run([sys.executable, str(SCRIPT), str(checkout), *args],
                          capture_output=True, text=True, timeout=60)


def rows_of(stdout):
    return [tuple(line.split("\t")) for line in stdout.splitlines() if not line.startswith("#")]


def header_of(stdout):
    return [line for line in stdout.splitlines() if line.startswith("#")]


def warnings_of(stderr):
    return [line[len(PREFIX):] for line in stderr.splitlines() if line.startswith(PREFIX)]


def line_of(checkout, needle, rel=SERVER_ARGS):
    """1-based line of the one line in the fixture that contains needle."""
    lines = (Path(checkout) / rel).read_text(encoding="utf-8").splitlines()
    hits = [i + 1 for i, line in enumerate(lines) if needle in line]
    assert len(hits) == 1, f"{needle!r} is on lines {hits} of {rel}"
    return hits[0]


def make_checkout(root, server_args_text):
    path = Path(root) / SERVER_ARGS
    path.parent.mkdir(parents=True)
    path.write_text(textwrap.dedent(server_args_text), encoding="utf-8")
    return Path(root)


CLEAN = textwrap.dedent("""\
    import argparse


    class ServerArgs:
        @staticmethod
        def add_cli_args(parser):
            parser.add_argument("--model-path", type=str)
            parser.add_argument("--trust-remote-code", action="store_true")
""")


class DataclassStyle(unittest.TestCase):
    checkout = FIXTURES / "dataclass_style"

    def setUp(self):
        self.result = run(self.checkout, "--commit", SHA)

    def test_exit_status(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)

    def test_rows_in_registration_order(self):
        self.assertEqual(rows_of(self.result.stdout), [
            ("-h", "help", "0"),
            ("--help", "help", "0"),
            # inherited dataclass fields come first
            ("--home-dir", "home_dir", "1"),
            ("--weights-dir", "weights_dir", "1"),
            ("--weights", "weights_dir", "1"),
            ("--tokenizer-dir", "tokenizer_dir", "1"),
            # cli_name replaces the derived flag; dest stays the field name
            ("--ws", "world_size", "1"),
            ("--world-size", "world_size", "1"),
            ("--quiet", "quiet", "0"),
            ("--strict-mode", "strict_mode", "0"),
            ("--bucket-sizes", "bucket_sizes", "+"),
            ("--search-paths", "search_paths", "*"),
            ("--include-dirs", "include_dirs", "+"),  # through the module-level alias Paths = List[str]
            ("--parsed-list", "parsed_list", "1"),  # type_parser: one value
            ("--untyped-list", "untyped_list", "1"),
            ("--checksum", "checksum", "?"),
            ("--speed", "speed", "1"),
            ("--either", "either", "1"),
            ("--overlap", "overlap", "0"),
            ("--no-overlap", "overlap", "0"),
            ("--ovl", "overlap", "0"),
            ("--no-ovl", "overlap", "0"),
            ("--adapters", "adapters", "*"),  # nargs from action_kwargs
            ("--pair", "pair", "2"),  # the action class forces nargs=2
            ("--legacy-mode", "legacy_mode", "0"),
            ("--mystery", "mystery", "1"),  # unknown action: guessed, with a warning
            # hand-written registrations after add_cli_args_from_dataclass
            ("--config", "config", "1"),
            ("--old-quiet", "quiet", "0"),
            ("--old-buckets", "bucket_sizes", "+"),
            ("--old-world", "world_size", "1"),
        ])

    def test_warnings(self):
        c = self.checkout
        plugin_loop = 'parser.add_argument(f"--plugin-'
        self.assertEqual(warnings_of(self.result.stderr), [
            f"{SERVER_ARGS}:{line_of(c, 'mystery: A[')}: unknown action MysteryAction; guessed nargs 1",
            f"{SERVER_ARGS}:{line_of(c, plugin_loop)}: option string `f'--plugin-{{name}}'` is not a literal; "
            "registration skipped",
        ])
        self.assertEqual(len(self.result.stderr.splitlines()), 2, self.result.stderr)

    def test_header(self):
        header = header_of(self.result.stdout)
        self.assertEqual(header[1], f"# source: sgl-project/sglang {SERVER_ARGS} @ {SHA}; also read at the same commit: "
                                    "python/sglang/srt/arg_groups/argparse_actions.py; "
                                    "generated by scripts/sglang_flag_table.py")
        self.assertEqual(header[2], "# confidence: high (sgl-project/sglang's own commit)")
        self.assertIn("add_cli_args_from_dataclass(parser, ServerArgs) expands in place", header[3])
        self.assertIn("(24 rows from dataclass fields, 4 from add_argument calls)", header[3])


class ExplicitStyle(unittest.TestCase):
    checkout = FIXTURES / "explicit_style"

    def setUp(self):
        self.result = run(self.checkout, "--commit", SHA)

    def test_exit_status(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)

    def test_rows_in_registration_order(self):
        self.assertEqual(rows_of(self.result.stdout), [
            ("-h", "help", "0"),
            ("--help", "help", "0"),
            ("--model-dir", "model_dir", "1"),
            ("--model", "model_dir", "1"),
            ("--port", "port", "1"),
            ("-v", "verbose", "0"),  # dest from the first long option
            ("--verbose", "verbose", "0"),
            ("--no-cache", "use_cache", "0"),
            ("--ranks", "ranks", "2"),
            ("--tags", "tags", "*"),
            ("--kv", "kv", "+"),
            # argument group and a mutually exclusive group inside it
            ("--host", "host", "1"),
            ("--enable-tls", "enable_tls", "0"),
            ("--tls-verify", "tls_verify", "0"),
            ("--no-tls-verify", "tls_verify", "0"),
            ("--ipv4", "ip_version", "0"),
            ("--ipv6", "ip_version", "0"),
            ("--removed-flag", "removed_flag", "0"),
            ("--numa-node", "numa_node", "1"),  # conditional: listed, with a warning
            # followed into ServerArgs._add_debug_args(parser)
            ("--debug-dir", "debug_output_dir", "1"),
            ("--trace", "trace", "0"),
            ("--weird", "weird", "1"),
        ])

    def test_warnings(self):
        c = self.checkout
        second_port = 'parser.add_argument("--port", type=int)'
        self.assertEqual(warnings_of(self.result.stderr), [
            f"{SERVER_ARGS}:{line_of(c, 'allow_abbrev=False')}: ArgumentParser(allow_abbrev=False): "
            "pdcheck assumes abbreviations are accepted",
            f"{SERVER_ARGS}:{line_of(c, '*EXTRA_NAMES')}: option string `*EXTRA_NAMES` is not a literal; "
            "registration skipped",
            f"{SERVER_ARGS}:{line_of(c, '--numa-node')}: --numa-node registered only if `sys.platform == 'linux'` "
            f"(line {line_of(c, 'if sys.platform')}); listed anyway",
            f"{SERVER_ARGS}:{line_of(c, 'register_extras(parser)')}: the parser is handed to register_extras(...), "
            "whose source is not in the checkout; options it adds are not listed",
            f"{SERVER_ARGS}:{line_of(c, 'frobnicate')}: unknown action 'frobnicate'; guessed nargs 1",
            f"{SERVER_ARGS}:{line_of(c, second_port)}: option --port was already registered "
            f"at {SERVER_ARGS}:{line_of(c, 'default=ServerArgs.port')}; argparse would refuse the second one, "
            "so only the first is listed",
        ])

    def test_header(self):
        header = header_of(self.result.stdout)
        self.assertEqual(header[1], f"# source: sgl-project/sglang {SERVER_ARGS} @ {SHA}; "
                                    "generated by scripts/sglang_flag_table.py")
        self.assertNotIn("add_cli_args_from_dataclass", header[3])
        self.assertIn("(0 rows from dataclass fields, 20 from add_argument calls)", header[3])

    def test_fork_header(self):
        # A fork's snapshot of a release line: its repository, how the release is known, confidence medium.
        out = run(self.checkout, "--commit", SHA, "--repo", "someone/sglang", "--note", "version.py says 0.5.4").stdout
        header = header_of(out)
        self.assertEqual(header[1], f"# source: someone/sglang {SERVER_ARGS} @ {SHA} (version.py says 0.5.4); "
                                    "generated by scripts/sglang_flag_table.py")
        self.assertEqual(header[2], "# confidence: medium (a fork's snapshot of SGLang's history, not an upstream tag)")
        out = run(self.checkout, "--commit", SHA, "--confidence", "high (two forks hold this commit)").stdout
        self.assertEqual(header_of(out)[2], "# confidence: high (two forks hold this commit)")

    def test_strict(self):
        self.assertEqual(run(self.checkout, "--commit", SHA, "--strict").returncode, 2)


class HeaderLayout(unittest.TestCase):
    """The generated header keeps the layout of the checked-in table, which pdcheck reads."""

    def test_same_layout_as_checked_in_table(self):
        generated = header_of(run(FIXTURES / "dataclass_style", "--commit", SHA).stdout)
        checked_in = header_of(CHECKED_IN.read_text(encoding="utf-8"))
        self.assertEqual(generated[0], checked_in[0])
        self.assertEqual(generated[-1], checked_in[-1])
        self.assertEqual(generated[-1], "# columns: option<TAB>dest<TAB>nargs")
        self.assertEqual([h.split(":")[0] for h in generated], [h.split(":")[0] for h in checked_in])
        for line in generated:
            self.assertTrue(line.startswith("# "), line)

    def test_commit_is_the_40_characters_after_the_marker(self):
        # launch_flags_source() takes the 40 characters after "server_args.py @ ".
        out = run(FIXTURES / "explicit_style", "--commit", SHA).stdout
        at = out.index("server_args.py @ ") + len("server_args.py @ ")
        self.assertEqual(out[at:at + 40], SHA)
        self.assertEqual(out.count("server_args.py @ "), 1)

    def test_short_commit_warns(self):
        result = run(FIXTURES / "explicit_style", "--commit", "0123abc")
        self.assertIn("commit '0123abc' is not a full 40-digit SHA; pdcheck reads the 40 characters after "
                      "'server_args.py @ '", warnings_of(result.stderr))


class Commit(unittest.TestCase):
    def test_fixture_inside_this_repository_is_not_its_own_checkout(self):
        # The fixture lies inside pdcheck's git tree: pdcheck's HEAD must not be taken for SGLang's.
        result = run(FIXTURES / "explicit_style")
        self.assertIn("server_args.py @ unknown;", result.stdout)
        self.assertIn("is not the top of a git checkout; commit unknown (give --commit SHA)",
                      warnings_of(result.stderr)[-1])

    @unittest.skipUnless(shutil.which("git"), "git not installed")
    def test_head_and_tag_of_a_git_checkout(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = make_checkout(os.path.join(tmp, "sglang"), CLEAN)
            env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
                       GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
            for cmd in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "x"], ["tag", "v0.0.1"]):
                subprocess.run(["git", "-C", str(root), *cmd], check=True, env=env, capture_output=True)
            head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], check=True,
                                  capture_output=True, text=True).stdout.strip()
            result = run(root)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stderr, "")
            self.assertIn(f"server_args.py @ {head} (v0.0.1);", result.stdout)
            # --commit wins over the checkout's HEAD; a tag or short SHA it knows is expanded
            self.assertIn(f"server_args.py @ {SHA};", run(root, "--commit", SHA).stdout)
            self.assertIn(f"server_args.py @ {head} (v0.0.1);", run(root, "--commit", "v0.0.1").stdout)
            short = run(root, "--commit", head[:8])
            self.assertIn(f"server_args.py @ {head} (v0.0.1);", short.stdout)
            self.assertEqual(short.stderr, "")


class Small(unittest.TestCase):
    def test_clean_checkout_has_no_warnings(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = make_checkout(tmp, CLEAN)
            result = run(root, "--commit", SHA, "--strict")
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stderr, "")
            self.assertEqual(rows_of(result.stdout), [
                ("-h", "help", "0"), ("--help", "help", "0"),
                ("--model-path", "model_path", "1"), ("--trust-remote-code", "trust_remote_code", "0"),
            ])

    def test_add_help_false_drops_help_rows(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = make_checkout(tmp, CLEAN + textwrap.dedent("""\


                def prepare_server_args(argv):
                    parser = argparse.ArgumentParser(add_help=False)
                    ServerArgs.add_cli_args(parser)
                    return parser.parse_args(argv)
            """))
            result = run(root, "--commit", SHA)
            self.assertEqual(rows_of(result.stdout)[0], ("--model-path", "model_path", "1"))
            self.assertEqual(warnings_of(result.stderr),
                             [f"{SERVER_ARGS}:{line_of(root, 'add_help=False')}: "
                              "ArgumentParser(add_help=False): -h/--help left out"])

    def test_missing_server_args(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = run(tmp, "--commit", SHA)
            self.assertEqual(result.returncode, 1)
            self.assertEqual(result.stdout, "")
            self.assertIn(f"{SERVER_ARGS} not found", result.stderr)

    def test_no_add_cli_args(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = make_checkout(tmp, "class ServerArgs:\n    pass\n")
            result = run(root, "--commit", SHA)
            self.assertEqual(result.returncode, 1)
            self.assertIn("has no ServerArgs.add_cli_args", result.stderr)


if __name__ == "__main__":
    unittest.main()
