#!/usr/bin/env python3
"""Write one release's table of src/sglang/data/launch_flags/ from an SGLang checkout.

Usage:
    python3 scripts/sglang_flag_table.py SGLANG_CHECKOUT [--commit SHA] [--repo OWNER/NAME] \
        [--note TEXT] [--confidence TEXT] [--strict] > src/sglang/data/launch_flags/RELEASE.tsv

The table lists every option string SGLang's launch parser registers, in
argparse registration order, with its dest and nargs. It is read from
python/sglang/srt/server_args.py with the `ast` module: nothing from the
checkout is imported or run, so neither sglang nor torch needs to be installed.

Two layouts of ServerArgs are understood:

* dataclass fields annotated `name: A[T, Arg(...)]` or `A[T, "help"]`, which
  `add_cli_args_from_dataclass(parser, ServerArgs)` turns into options;
* explicit `parser.add_argument(...)` calls (on the parser or on argument
  groups) inside `ServerArgs.add_cli_args`.

Both may be mixed: add_cli_args is read statement by statement, and the
add_cli_args_from_dataclass call is expanded where it stands. Helper functions
that add_cli_args hands the parser to are followed when their source is in the
checkout. Action classes are looked up in the checkout (argparse_actions.py
and wherever server_args.py imports them from) to learn their nargs.

Whatever cannot be decided from the source (an unknown action, a non-literal
option string or nargs, a registration under a condition) is reported on
stderr as a warning with its file and line; the row is still written with a
best guess, or left out when its option string is not a literal. With
--strict the exit status is 2 when there was any warning.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Optional

SERVER_ARGS = "python/sglang/srt/server_args.py"
PROG = "sglang_flag_table"

# argparse's built-in actions, by their registry string and by class name.
ZERO_ACTIONS = {"store_true", "store_false", "store_const", "append_const", "count", "help", "version"}
VALUE_ACTIONS = {"store", "append", "extend"}
ARGPARSE_CLASSES = {
    "Action": ("default", "1"),
    "_StoreAction": ("default", "1"),
    "_AppendAction": ("default", "1"),
    "_ExtendAction": ("default", "1"),
    "_StoreConstAction": ("fixed", "0"),
    "_StoreTrueAction": ("fixed", "0"),
    "_StoreFalseAction": ("fixed", "0"),
    "_AppendConstAction": ("fixed", "0"),
    "_CountAction": ("fixed", "0"),
    "_HelpAction": ("fixed", "0"),
    "_VersionAction": ("fixed", "0"),
    "BooleanOptionalAction": ("boolopt", None),
}
# SGLang's own actions, used when their class is not found in the checkout.
# ("default", n): n values unless the registration gives nargs.
SGLANG_ACTIONS = {
    "DeprecatedAction": ("default", "0"),
    "DeprecatedStoreTrueAction": ("default", "0"),
    "DeprecatedStoreConstAction": ("default", "0"),
    "DeprecatedAliasStoreAction": ("default", "1"),
    "LoRAPathAction": ("default", "1"),
}
NARGS_CONSTANTS = {"OPTIONAL": "?", "ZERO_OR_MORE": "*", "ONE_OR_MORE": "+", "REMAINDER": "...", "PARSER": "A..."}
GROUP_FACTORIES = {"add_argument_group", "add_mutually_exclusive_group"}
# Parser methods that register nothing: calling them is not handing the parser on.
QUIET_PARSER_METHODS = GROUP_FACTORIES | {"set_defaults", "get_default", "parse_args", "parse_known_args", "print_help", "format_help", "error"}


@dataclass
class Row:
    option: str
    dest: str
    nargs: str
    where: str


@dataclass
class Module:
    rel: str  # path relative to the checkout
    tree: ast.Module
    package: str  # dotted package the module lives in, for relative imports
    functions: dict = field(default_factory=dict)
    classes: dict = field(default_factory=dict)
    assigns: dict = field(default_factory=dict)
    imports: dict = field(default_factory=dict)  # local name -> (module, name)
    module_aliases: dict = field(default_factory=dict)  # local name -> module

    def index(self):
        for node in self.tree.body:
            self._index_stmt(node)

    def _index_stmt(self, node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            self.classes[node.name] = node
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    self.assigns[t.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            self.assigns[node.target.id] = node.value
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = self.package.split(".") if self.package else []
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join(p for p in parts + ([node.module] if node.module else []) if p)
            for alias in node.names:
                if alias.name != "*":
                    self.imports[alias.asname or alias.name] = (base, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.module_aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.module_aliases[top] = top
        elif isinstance(node, (ast.If, ast.Try)):
            # `try: from x import y except ImportError: ...` and `if TYPE_CHECKING:`
            for sub in ast.iter_child_nodes(node):
                if isinstance(sub, ast.stmt):
                    self._index_stmt(sub)
            for handler in getattr(node, "handlers", []):
                for sub in handler.body:
                    self._index_stmt(sub)


def terminal_name(expr) -> Optional[str]:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return None


def is_named(expr, names) -> bool:
    return terminal_name(expr) in names


def literal_str(expr) -> Optional[str]:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    return None


def is_none(expr) -> bool:
    return expr is None or (isinstance(expr, ast.Constant) and expr.value is None)


def source_of(expr, limit=60) -> str:
    text = ast.unparse(expr)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def strish(expr) -> bool:
    """Whether an expression is a string at runtime (a help text)."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str)
    if isinstance(expr, ast.JoinedStr):
        return True
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Mod)):
        return strish(expr.left)
    return False


class Generator:
    def __init__(self, root: str):
        self.root = root
        self.modules: dict[str, Optional[Module]] = {}
        self.warnings: list[str] = []
        self.rows: list[Row] = []
        self.seen: dict[str, Row] = {}
        self.field_rows = 0
        self.call_rows = 0
        self.dataclass_calls = 0
        self.read: list[str] = []
        self._following: list = []

    # ----------------------------------------------------------------- util
    def warn(self, mod: Module, node, message: str):
        line = getattr(node, "lineno", node) if node is not None else "?"
        self.warnings.append(f"{mod.rel}:{line}: {message}")

    def load(self, rel: str) -> Optional[Module]:
        if rel in self.modules:
            return self.modules[rel]
        path = os.path.join(self.root, rel)
        mod = None
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                tree = ast.parse(text, filename=rel)
            except (SyntaxError, UnicodeDecodeError, ValueError) as e:
                if rel == SERVER_ARGS:
                    raise
                self.warnings.append(f"{rel}:{getattr(e, 'lineno', '?')}: cannot parse ({e.__class__.__name__}); "
                                     "taken as not in the checkout")
                self.modules[rel] = None
                return None
            parts = rel[len("python/"):-len(".py")].split("/") if rel.startswith("python/") else []
            package = ".".join(parts[:-1])  # a module's package; for __init__.py, the package itself
            mod = Module(rel=rel, tree=tree, package=package)
            mod.index()
            self.read.append(rel)
        self.modules[rel] = mod
        return mod

    def load_dotted(self, dotted: str) -> Optional[Module]:
        if not dotted:
            return None
        base = "python/" + dotted.replace(".", "/")
        for rel in (base + ".py", base + "/__init__.py"):
            mod = self.load(rel)
            if mod is not None:
                return mod
        return None

    def lookup(self, mod: Module, name: str, depth=0):
        """Find what a module-level name is: ('function'|'class'|'assign', module, node),
        ('external', dotted module, name) for names imported from outside the checkout, or None."""
        if depth > 8:
            return None
        if name in mod.functions:
            return ("function", mod, mod.functions[name])
        if name in mod.classes:
            return ("class", mod, mod.classes[name])
        if name in mod.assigns:
            return ("assign", mod, mod.assigns[name])
        if name in mod.imports:
            dotted, orig = mod.imports[name]
            target = self.load_dotted(dotted)
            if target is None:
                # `from package import submodule`
                sub = self.load_dotted(f"{dotted}.{orig}")
                if sub is not None:
                    return ("module", sub, None)
                return ("external", dotted, orig)
            found = self.lookup(target, orig, depth + 1)
            if found is None:
                sub = self.load_dotted(f"{dotted}.{orig}")
                if sub is not None:
                    return ("module", sub, None)
                return ("external", dotted, orig)
            return found
        if name in mod.module_aliases:
            target = self.load_dotted(mod.module_aliases[name])
            if target is not None:
                return ("module", target, None)
            return ("external", mod.module_aliases[name], None)
        return None

    def resolve(self, mod: Module, expr, cls_ctx=None):
        """Resolve a Name or a dotted Attribute to what lookup() returns."""
        if isinstance(expr, ast.Name):
            if expr.id in ("cls", "self") and cls_ctx is not None:
                return ("class", cls_ctx[0], cls_ctx[1])
            return self.lookup(mod, expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.resolve(mod, expr.value, cls_ctx)
            if base is None:
                return None
            kind, where, node = base
            if kind == "module":
                return self.lookup(where, expr.attr)
            if kind == "external":
                return ("external", f"{where}.{node}" if node else where, expr.attr)
            if kind == "class":
                for stmt in node.body:
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == expr.attr:
                        return ("method", where, (node, stmt))
            return None
        return None

    def add_row(self, mod: Module, node, option: str, dest: str, nargs: str):
        where = f"{mod.rel}:{getattr(node, 'lineno', '?')}"
        if option in self.seen:
            self.warn(mod, node, f"option {option} was already registered at {self.seen[option].where}; "
                                 "argparse would refuse the second one, so only the first is listed")
            return False
        row = Row(option, dest, nargs, where)
        self.seen[option] = row
        self.rows.append(row)
        return True

    # --------------------------------------------------------------- nargs
    def nargs_literal(self, mod: Module, expr, what: str) -> Optional[str]:
        """nargs= as written; None when absent. A non-literal is guessed as 1."""
        if is_none(expr):
            return None
        if isinstance(expr, ast.Constant):
            if isinstance(expr.value, str):
                return expr.value
            if isinstance(expr.value, int) and not isinstance(expr.value, bool):
                return str(expr.value)
        if is_named(expr, NARGS_CONSTANTS):  # argparse.OPTIONAL, ZERO_OR_MORE, ...
            return NARGS_CONSTANTS[terminal_name(expr)]
        self.warn(mod, expr, f"{what} nargs `{source_of(expr)}` is not a literal; guessed 1")
        return "1"

    def action_class_kind(self, mod: Module, cls: ast.ClassDef, depth=0):
        """('fixed', n) | ('default', n) | ('boolopt', None) | None (undecided) for an Action subclass."""
        if depth > 8:
            return None
        base_kind = None
        for base in cls.bases:
            found = self.resolve(mod, base)
            name = terminal_name(base)
            if found is not None and found[0] == "class":
                base_kind = self.action_class_kind(found[1], found[2], depth + 1)
            elif name in ARGPARSE_CLASSES and (found is None or found[0] == "external"):
                base_kind = ARGPARSE_CLASSES[name]
            if base_kind is not None:
                break
        if base_kind is None:
            return None
        init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
        if init is None or base_kind[0] == "boolopt":
            return base_kind
        params = init.args.args + init.args.kwonlyargs
        defaults = dict(zip([a.arg for a in init.args.args[::-1]], init.args.defaults[::-1]))
        defaults.update({a.arg: d for a, d in zip(init.args.kwonlyargs, init.args.kw_defaults) if d is not None})
        has_nargs_param = any(a.arg == "nargs" for a in params)
        param_default = None
        if has_nargs_param and "nargs" in defaults:
            d = defaults["nargs"]
            if isinstance(d, ast.Constant) and (isinstance(d.value, (str, int)) or d.value is None):
                param_default = None if d.value is None else str(d.value)
            else:
                return None
        super_call = None
        for node in ast.walk(init):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__":
                super_call = node
                break
        if super_call is None:
            return ("default", param_default or base_kind[1]) if has_nargs_param else base_kind
        passed = {k.arg: k.value for k in super_call.keywords if k.arg}
        positional = list(super_call.args)
        if not (isinstance(super_call.func.value, ast.Call)):  # Base.__init__(self, ...) rather than super().__init__(...)
            positional = positional[1:]
        if len(positional) >= 3 and not isinstance(positional[2], ast.Starred):
            passed.setdefault("nargs", positional[2])  # Action(option_strings, dest, nargs, ...)
        if "nargs" in passed:
            v = passed["nargs"]
            if isinstance(v, ast.Name) and v.id == "nargs":
                if base_kind[0] == "fixed":
                    return base_kind
                return ("default", param_default or base_kind[1])
            if isinstance(v, ast.Constant) and isinstance(v.value, (str, int)):
                return ("fixed", str(v.value))
            return None
        if has_nargs_param:
            # The class takes nargs but does not hand it on: the base's default stands.
            return ("fixed", base_kind[1])
        return base_kind

    def action_nargs(self, mod: Module, action, explicit: Optional[str], node, cls_ctx=None):
        """The nargs of one registration: a string, or 'boolopt' for BooleanOptionalAction."""
        if is_none(action):
            return explicit or "1"
        s = literal_str(action)
        if s is not None:
            if s in ZERO_ACTIONS:
                return "0"
            if s in VALUE_ACTIONS:
                return explicit or "1"
            self.warn(mod, node, f"unknown action '{s}'; guessed nargs {explicit or '1'}")
            return explicit or "1"
        name = terminal_name(action)
        if name is None:
            self.warn(mod, node, f"action `{source_of(action)}` is not a name; guessed nargs {explicit or '1'}")
            return explicit or "1"
        found = self.resolve(mod, action, cls_ctx)
        kind = None
        if found is not None and found[0] == "class":
            kind = self.action_class_kind(found[1], found[2])
            if kind is None:
                self.warn(mod, node, f"cannot tell the nargs of action {name} (class at {found[1].rel}:{found[2].lineno}); "
                                     f"guessed {explicit or '1'}")
                return explicit or "1"
        elif name in ARGPARSE_CLASSES and found is not None and found[0] == "external" \
                and found[1].split(".")[0] == "argparse":
            kind = ARGPARSE_CLASSES[name]
        elif name in SGLANG_ACTIONS:
            kind = SGLANG_ACTIONS[name]
        if kind is None:
            self.warn(mod, node, f"unknown action {name}; guessed nargs {explicit or '1'}")
            return explicit or "1"
        if kind[0] == "boolopt":
            return "boolopt"
        if kind[0] == "fixed":
            return kind[1]
        return explicit or kind[1]

    @staticmethod
    def expand_options(options, nargs):
        """Option strings with their nargs; BooleanOptionalAction adds --no-X after each --X."""
        if nargs != "boolopt":
            return [(o, nargs) for o in options]
        out = []
        for o in options:
            out.append((o, "0"))
            if o.startswith("--"):
                out.append(("--no-" + o[2:], "0"))
        return out

    # -------------------------------------------------------- add_argument
    def add_argument(self, mod: Module, call: ast.Call, ctx, cls_ctx):
        options = []
        for a in call.args:
            s = literal_str(a)
            if s is None:
                self.warn(mod, call, f"option string `{source_of(a)}` is not a literal; registration skipped")
                return
            options.append(s)
        if not options:
            self.warn(mod, call, "add_argument without literal option strings; skipped")
            return
        if not all(o.startswith("-") for o in options):
            self.warn(mod, call, f"positional argument {options[0]!r} is not an option; skipped")
            return
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        if any(k.arg is None for k in call.keywords):
            self.warn(mod, call, f"**kwargs in the registration of {options[0]}: action, nargs or dest may be hidden; "
                                 "read from the literal keywords only")
        longs = [o for o in options if o.startswith("--")]
        dest = (longs[0] if longs else options[0]).lstrip("-").replace("-", "_")
        if "dest" in kw:
            d = literal_str(kw["dest"])
            if d is None:
                self.warn(mod, call, f"dest `{source_of(kw['dest'])}` of {options[0]} is not a literal; guessed {dest}")
            else:
                dest = d
        explicit = self.nargs_literal(mod, kw["nargs"], options[0]) if "nargs" in kw else None
        nargs = self.action_nargs(mod, kw.get("action"), explicit, call, cls_ctx)
        self.note_conditions(mod, call, ctx, options)
        for option, n in self.expand_options(options, nargs):
            if self.add_row(mod, call, option, dest, n):
                self.call_rows += 1

    def note_conditions(self, mod, node, ctx, options):
        if ctx:
            self.warn(mod, node, f"{', '.join(options)} registered only {ctx[-1]}; listed anyway")

    # ------------------------------------------------------ dataclass style
    def dataclass_fields(self, mod: Module, cls: ast.ClassDef, depth=0):
        """(module, name, annotation, node) of a dataclass's fields: bases first, as dataclasses does."""
        out: dict[str, tuple] = {}
        if depth > 8:
            return out
        for base in reversed(cls.bases):
            if is_named(base, {"object", "Generic", "Protocol"}) or isinstance(base, ast.Subscript):
                continue
            found = self.resolve(mod, base)
            if found is not None and found[0] == "class":
                for name, value in self.dataclass_fields(found[1], found[2], depth + 1).items():
                    out[name] = value
            else:
                self.warn(mod, cls, f"base class {source_of(base)} of {cls.name} is not in the checkout; "
                                    "its fields are not listed")
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                ann = stmt.annotation
                if isinstance(ann, ast.Subscript) and is_named(ann.value, {"ClassVar", "InitVar"}):
                    continue
                if is_named(ann, {"ClassVar", "KW_ONLY"}):
                    continue
                name = stmt.target.id
                out[name] = (mod, name, ann, stmt)  # a redefinition keeps the base's position, as in dataclasses
        return out

    def expand_dataclass(self, mod: Module, call: ast.Call, ctx, cls_ctx):
        args = list(call.args)
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        cls_expr = args[1] if len(args) > 1 else kw.get("cls")
        if cls_expr is None:
            self.warn(mod, call, "add_cli_args_from_dataclass without a class; nothing listed")
            return
        found = self.resolve(mod, cls_expr, cls_ctx)
        if found is None or found[0] != "class":
            self.warn(mod, call, f"class {source_of(cls_expr)} given to add_cli_args_from_dataclass is not in the checkout; "
                                 "its fields are not listed")
            return
        only = None
        if "fields" in kw and not is_none(kw["fields"]):
            f = kw["fields"]
            if isinstance(f, (ast.List, ast.Tuple, ast.Set)) and all(literal_str(e) is not None for e in f.elts):
                only = {literal_str(e) for e in f.elts}
            else:
                self.warn(mod, call, f"fields= `{source_of(f)}` is not a literal list; every field listed")
        self.dataclass_calls += 1
        if ctx:
            self.warn(mod, call, f"dataclass fields of {found[2].name} registered only {ctx[-1]}; listed anyway")
        for fmod, name, ann, node in self.dataclass_fields(found[1], found[2]).values():
            if only is not None and name not in only:
                continue
            self.dataclass_field(fmod, name, ann, node)

    def resolve_type(self, mod: Module, expr, depth=0):
        """Follow module-level aliases (`Paths = List[str]`) and quoted annotations."""
        if depth > 8:
            return expr
        s = literal_str(expr)
        if s is not None:
            try:
                return self.resolve_type(mod, ast.parse(s, mode="eval").body, depth + 1)
            except SyntaxError:
                return expr
        if isinstance(expr, ast.Name) and expr.id in mod.assigns:
            value = mod.assigns[expr.id]
            if isinstance(value, (ast.Subscript, ast.Name, ast.Attribute, ast.BinOp)):
                return self.resolve_type(mod, value, depth + 1)
        return expr

    def union_members(self, mod, expr):
        """Members of a Union/Optional/`|` annotation (None as None), or None when it is not a union."""
        expr = self.resolve_type(mod, expr)
        if isinstance(expr, ast.Subscript) and is_named(expr.value, {"Optional"}):
            inner = self.union_members(mod, expr.slice)
            return (inner if inner is not None else [expr.slice]) + [None]
        if isinstance(expr, ast.Subscript) and is_named(expr.value, {"Union"}):
            elts = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
            out = []
            for e in elts:
                sub = self.union_members(mod, e)
                out.extend(sub if sub is not None else [None if is_none(e) else e])
            return out
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            out = []
            for e in (expr.left, expr.right):
                sub = self.union_members(mod, e)
                out.extend(sub if sub is not None else [None if is_none(e) else e])
            return out
        return None

    def unwrap_optional(self, mod, expr):
        members = self.union_members(mod, expr)
        if members is None:
            return self.resolve_type(mod, expr)
        non_none = [m for m in members if m is not None]
        if len(non_none) == 1:
            return self.resolve_type(mod, non_none[0])
        return expr  # a real union: argparse gets a scalar

    def field_meta(self, mod: Module, name: str, ann):
        """(raw type, Arg call or help marker) of an A[T, ...] annotation; None when it has no Arg/help."""
        ann = self.resolve_type(mod, ann) if literal_str(ann) is not None else ann
        if not (isinstance(ann, ast.Subscript) and is_named(ann.value, {"A", "Annotated"})):
            return None
        elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if len(elts) < 2:
            return None
        for e in elts[1:]:
            value = e
            if isinstance(e, (ast.Name, ast.Attribute)):
                found = self.resolve(mod, e)
                if found is not None and found[0] == "assign":
                    value = found[2]
                elif found is not None and found[0] in ("class", "function"):
                    continue  # a class or function object is neither an Arg nor a help string
                else:
                    self.warn(mod, e, f"metadata `{source_of(e)}` of field {name} is not understood; "
                                      "not taken as its Arg")
                    continue
            if isinstance(value, ast.Call) and is_named(value.func, {"Arg"}):
                return elts[0], value
            if strish(value):
                return elts[0], "help"
        return None

    def dataclass_field(self, mod: Module, name: str, ann, node):
        meta = self.field_meta(mod, name, ann)
        if meta is None:
            return
        raw_type, arg = meta
        kw = {}
        if isinstance(arg, ast.Call):
            kw = {k.arg: k.value for k in arg.keywords if k.arg}
            if any(k.arg is None for k in arg.keywords):
                self.warn(mod, arg, f"**kwargs in the Arg of field {name}: cli_name, aliases, nargs or action may be hidden")
            if len(arg.args) > 1:
                self.warn(mod, arg, f"Arg of field {name} has {len(arg.args)} positional arguments; only the first (help) is understood")
        if "no_cli" in kw:
            v = kw["no_cli"]
            if isinstance(v, ast.Constant) and isinstance(v.value, bool):
                if v.value:
                    return
            else:
                self.warn(mod, v, f"no_cli `{source_of(v)}` of field {name} is not a literal; taken as False")
        cli_name = "--" + name.replace("_", "-")
        if "cli_name" in kw and not is_none(kw["cli_name"]):
            s = literal_str(kw["cli_name"])
            if s is None:
                self.warn(mod, kw["cli_name"], f"cli_name `{source_of(kw['cli_name'])}` of field {name} is not a literal; "
                                               "field skipped")
                return
            cli_name = s
        options = [cli_name]
        if "aliases" in kw and not is_none(kw["aliases"]):
            a = kw["aliases"]
            if isinstance(a, ast.Name):
                found = self.resolve(mod, a)
                if found is not None and found[0] == "assign":
                    a = found[2]
            if isinstance(a, (ast.List, ast.Tuple)):
                for e in a.elts:
                    s = literal_str(e)
                    if s is None:
                        self.warn(mod, e, f"alias `{source_of(e)}` of field {name} is not a literal; left out")
                    else:
                        options.append(s)
            else:
                self.warn(mod, a, f"aliases `{source_of(a)}` of field {name} are not a literal list; left out")
        arg_nargs = self.nargs_literal(mod, kw["nargs"], f"field {name}") if "nargs" in kw else None
        dest = name
        if "action" in kw and not is_none(kw["action"]):
            explicit = arg_nargs
            ak = kw.get("action_kwargs")
            if ak is not None and not is_none(ak):
                if isinstance(ak, ast.Dict) and all(literal_str(k) is not None for k in ak.keys if k is not None) \
                        and None not in ak.keys:
                    entries = {literal_str(k): v for k, v in zip(ak.keys, ak.values)}
                    if "nargs" in entries:
                        explicit = self.nargs_literal(mod, entries["nargs"], f"field {name}")
                    if "dest" in entries:
                        d = literal_str(entries["dest"])
                        if d is None:
                            self.warn(mod, entries["dest"], f"dest in action_kwargs of field {name} is not a literal; "
                                                            f"guessed {dest}")
                        else:
                            dest = d
                else:
                    self.warn(mod, ak, f"action_kwargs `{source_of(ak)}` of field {name} is not a literal dict; "
                                       "nargs read from Arg only")
            nargs = self.action_nargs(mod, kw["action"], explicit, node)
        else:
            inner = self.unwrap_optional(mod, raw_type)
            type_parser = kw.get("type_parser")
            if isinstance(inner, ast.Subscript) and is_named(inner.value, {"Literal"}):
                nargs = arg_nargs or "1"
            elif self.is_list(inner) and is_none(type_parser):
                nargs = arg_nargs or "+"
            elif isinstance(inner, (ast.Name, ast.Attribute)) and is_named(inner, {"bool"}):
                nargs = "0"
            else:
                nargs = arg_nargs or "1"
        for option, n in self.expand_options(options, nargs):
            if self.add_row(mod, node, option, dest, n):
                self.field_rows += 1

    @staticmethod
    def is_list(expr) -> bool:
        if isinstance(expr, ast.Subscript):
            return is_named(expr.value, {"List", "list"})
        # typing.List bare has origin list; the builtin `list` bare does not.
        return is_named(expr, {"List"})

    # ----------------------------------------------------- add_cli_args walk
    def parserish(self, expr, parsers) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in parsers
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in GROUP_FACTORIES:
            return self.parserish(expr.func.value, parsers)
        return False

    def walk_function(self, mod: Module, func, parser_param: str, ctx, cls_ctx):
        key = (mod.rel, func.lineno)
        if key in self._following:
            self.warn(mod, func, f"{func.name} calls itself with the parser; not followed again")
            return
        self._following.append(key)
        self.walk_block(mod, func.body, {parser_param}, ctx, cls_ctx)
        self._following.pop()

    def walk_block(self, mod, stmts, parsers, ctx, cls_ctx):
        for stmt in stmts:
            if isinstance(stmt, ast.If):
                self.walk_calls(mod, stmt.test, parsers, ctx, cls_ctx)
                cond = source_of(stmt.test)
                self.walk_block(mod, stmt.body, parsers, ctx + [f"if `{cond}` (line {stmt.lineno})"], cls_ctx)
                self.walk_block(mod, stmt.orelse, parsers, ctx + [f"unless `{cond}` (line {stmt.lineno})"], cls_ctx)
            elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                self.walk_calls(mod, stmt.iter if hasattr(stmt, "iter") else stmt.test, parsers, ctx, cls_ctx)
                loop = f"inside a loop (line {stmt.lineno})"
                self.walk_block(mod, stmt.body, parsers, ctx + [loop], cls_ctx)
                self.walk_block(mod, stmt.orelse, parsers, ctx + [loop], cls_ctx)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                self.walk_block(mod, stmt.body, parsers, ctx, cls_ctx)
            elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
                self.walk_block(mod, stmt.body, parsers, ctx, cls_ctx)
                for h in stmt.handlers:
                    self.walk_block(mod, h.body, parsers, ctx + [f"in an except clause (line {h.lineno})"], cls_ctx)
                self.walk_block(mod, stmt.orelse, parsers, ctx, cls_ctx)
                self.walk_block(mod, stmt.finalbody, parsers, ctx, cls_ctx)
            elif isinstance(stmt, ast.Match):
                self.walk_calls(mod, stmt.subject, parsers, ctx, cls_ctx)
                for case in stmt.cases:
                    self.walk_block(mod, case.body, parsers, ctx + [f"in a match case (line {case.pattern.lineno})"], cls_ctx)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            else:
                self.walk_calls(mod, stmt, parsers, ctx, cls_ctx)
                if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None \
                        and self.parserish(stmt.value, parsers):
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    for t in targets:
                        if isinstance(t, ast.Name):
                            parsers.add(t.id)

    def calls_in_order(self, node, cond=None):
        """(call, condition or None) for the Call nodes under node, outer before inner, left to right.
        The condition names an `a if c else b`, `a and b` or comprehension that may skip the call."""
        if isinstance(node, ast.Call):
            yield node, cond
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            sub = cond
            if isinstance(node, ast.IfExp) and child is not node.test:
                sub = f"under the conditional expression `{source_of(node.test)}` (line {node.lineno})"
            elif isinstance(node, ast.BoolOp) and child is not node.values[0]:
                sub = f"under the short-circuit `{source_of(node)}` (line {node.lineno})"
            elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) \
                    and not isinstance(child, ast.comprehension):
                sub = f"inside a comprehension (line {node.lineno})"
            yield from self.calls_in_order(child, sub)

    def walk_calls(self, mod, node, parsers, ctx_outer, cls_ctx):
        for call, cond in self.calls_in_order(node):
            ctx = ctx_outer + [cond] if cond is not None else ctx_outer
            func = call.func
            if isinstance(func, ast.Attribute) and self.parserish(func.value, parsers):
                if func.attr == "add_argument":
                    self.add_argument(mod, call, ctx, cls_ctx)
                elif func.attr not in QUIET_PARSER_METHODS:
                    self.warn(mod, call, f"parser.{func.attr}(...) is not understood; ignored")
                continue
            if is_named(func, {"add_cli_args_from_dataclass"}):
                self.expand_dataclass(mod, call, ctx, cls_ctx)
                continue
            handed = [i for i, a in enumerate(call.args) if self.parserish(a, parsers)]
            handed_kw = [k.arg for k in call.keywords if k.arg and self.parserish(k.value, parsers)]
            if handed or handed_kw:
                self.follow(mod, call, handed, handed_kw, ctx, cls_ctx)

    def follow(self, mod, call, handed, handed_kw, ctx, cls_ctx):
        """Follow a helper that add_cli_args hands the parser to."""
        found = self.resolve(mod, call.func, cls_ctx)
        func = fmod = None
        new_cls_ctx = cls_ctx
        bound = False
        if found is not None and found[0] == "function":
            fmod, func = found[1], found[2]
        elif found is not None and found[0] == "method":
            fmod, (cls, func) = found[1], found[2]
            new_cls_ctx = (fmod, cls)
            is_static = any(is_named(d, {"staticmethod"}) for d in func.decorator_list)
            # cls.f(parser) / self.f(parser) / ServerArgs.f(parser) on a classmethod binds the first parameter.
            bound = not is_static and (
                any(is_named(d, {"classmethod"}) for d in func.decorator_list)
                or (isinstance(call.func.value, ast.Name) and call.func.value.id == "self")
            )
        if func is None:
            self.warn(mod, call, f"the parser is handed to {source_of(call.func)}(...), whose source is not in the checkout; "
                                 "options it adds are not listed")
            return
        params = [a.arg for a in func.args.posonlyargs + func.args.args]
        if bound and params:
            params = params[1:]
        target = None
        if handed and handed[0] < len(params):
            target = params[handed[0]]
        elif handed_kw:
            target = handed_kw[0]
        if target is None:
            self.warn(mod, call, f"cannot tell which parameter of {func.name} receives the parser; not followed")
            return
        self.walk_function(fmod, func, target, ctx, new_cls_ctx)

    # ------------------------------------------------------------------ run
    def parser_settings(self, mod: Module):
        """(add_help, notes) from the ArgumentParser that prepare_server_args builds."""
        func = mod.functions.get("prepare_server_args")
        if func is None:
            return True
        for call, _ in self.calls_in_order(func):
            if is_named(call.func, {"ArgumentParser"}):
                kw = {k.arg: k.value for k in call.keywords if k.arg}
                add_help = True
                if "allow_abbrev" in kw and not (isinstance(kw["allow_abbrev"], ast.Constant) and kw["allow_abbrev"].value is True):
                    self.warn(mod, call, f"ArgumentParser(allow_abbrev={source_of(kw['allow_abbrev'])}): "
                                         "pdcheck assumes abbreviations are accepted")
                if "add_help" in kw:
                    v = kw["add_help"]
                    if isinstance(v, ast.Constant) and v.value is False:
                        add_help = False
                        self.warn(mod, call, "ArgumentParser(add_help=False): -h/--help left out")
                    elif not (isinstance(v, ast.Constant) and v.value is True):
                        self.warn(mod, call, f"ArgumentParser(add_help={source_of(v)}) is not a literal; -h/--help listed")
                return add_help
        return True

    def run(self):
        mod = self.load(SERVER_ARGS)
        if mod is None:
            raise SystemExit(f"{PROG}: error: {os.path.join(self.root, SERVER_ARGS)} not found")
        func = None
        cls_ctx = None
        cls = mod.classes.get("ServerArgs")
        if cls is not None:
            func = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "add_cli_args"), None)
            cls_ctx = (mod, cls)
        if func is None:
            func = mod.functions.get("add_cli_args")
        if func is None:
            raise SystemExit(f"{PROG}: error: {SERVER_ARGS} has no ServerArgs.add_cli_args (nor a module-level add_cli_args); "
                             "this layout is not supported")
        params = [a.arg for a in func.args.posonlyargs + func.args.args]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        if not params:
            raise SystemExit(f"{PROG}: error: {SERVER_ARGS}:{func.lineno}: add_cli_args takes no parser parameter")
        if self.parser_settings(mod):
            self.rows.append(Row("-h", "help", "0", "argparse add_help"))
            self.rows.append(Row("--help", "help", "0", "argparse add_help"))
            self.seen["-h"] = self.rows[0]
            self.seen["--help"] = self.rows[1]
        self.walk_function(mod, func, params[0], [], cls_ctx)
        if self.field_rows + self.call_rows == 0:
            self.warn(mod, func, "no options found")
        return self.rows


def git(root, *args) -> Optional[str]:
    try:
        out = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True, check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def checkout_commit(root, rev="HEAD"):
    """(full commit, exact tag or None) of rev when root is itself the top of a git checkout,
    else (None, None). A checkout nested in another repository (a test fixture) is not one."""
    top = git(root, "rev-parse", "--show-toplevel")
    if top is None or os.path.realpath(top) != os.path.realpath(root):
        return None, None
    full = git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if full is None:
        return None, None
    return full, git(root, "describe", "--tags", "--exact-match", full)


UPSTREAM = "sgl-project/sglang"


def render(gen: Generator, commit: str, tag: Optional[str], repo: str = UPSTREAM, note: Optional[str] = None,
           confidence: Optional[str] = None) -> str:
    also = [rel for rel in gen.read if rel != SERVER_ARGS]
    source = f"{repo} {SERVER_ARGS} @ {commit}"
    if tag:
        source += f" ({tag})"
    if note:
        source += f" ({note})"
    if also:
        source += "; also read at the same commit: " + ", ".join(also)
    source += "; generated by scripts/sglang_flag_table.py"
    how = "# how: argparse's add_help default puts -h/--help first; then ServerArgs.add_cli_args statement by statement"
    if gen.dataclass_calls:
        how += (": add_cli_args_from_dataclass(parser, ServerArgs) expands in place to every A[T, Arg(...)]/A[T, \"help\"] "
                "field in declaration order (no_cli fields and fields without Arg/help skipped; flag is cli_name or "
                "--field-name, then aliases; dest is the field name), and each add_argument on the parser or a group "
                "adds its option strings")
    else:
        how += (": each add_argument on the parser or an argument group adds its option strings (dest: dest=, else the "
                "first long option)")
    how += f" ({gen.field_rows} rows from dataclass fields, {gen.call_rows} from add_argument calls)."
    lines = [
        "# SGLang launch-argument option strings, in argparse registration order.",
        f"# source: {source}",
        f"# confidence: {confidence or default_confidence(repo)}",
        how,
        "# how: nargs: store_true/store_false/store_const/append_const/count -> 0; BooleanOptionalAction -> --x then --no-x (0); "
        "bool/Optional[bool] field -> 0; List[T] field without type_parser -> Arg.nargs or \"+\"; "
        "DeprecatedAction/DeprecatedStoreTrueAction/DeprecatedStoreConstAction -> 0; other actions -> the nargs given, "
        "else the action class's default (1 when it has none); anything else -> nargs or 1.",
        "# columns: option<TAB>dest<TAB>nargs",
    ]
    lines += [f"{r.option}\t{r.dest}\t{r.nargs}" for r in gen.rows]
    return "\n".join(lines) + "\n"


def default_confidence(repo: str) -> str:
    """pdcheck reads the first word: high for upstream's own commit, medium for a fork's copy."""
    if repo == UPSTREAM:
        return f"high ({UPSTREAM}'s own commit)"
    return "medium (a fork's snapshot of SGLang's history, not an upstream tag)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description="Write SGLang's launch flag table (TSV) from a checkout.")
    ap.add_argument("checkout", help="SGLang checkout (the folder holding python/sglang)")
    ap.add_argument("--commit", help="commit to name in the source line (default: git rev-parse HEAD of the checkout; "
                                     "an abbreviated SHA or a tag is expanded when the checkout is a git repository)")
    ap.add_argument("--repo", default=UPSTREAM, help=f"repository the checkout is a copy of (default {UPSTREAM})")
    ap.add_argument("--note", help="said in parentheses after the commit, e.g. how the release was established")
    ap.add_argument("--confidence", help="the confidence line (default: high for upstream, medium for a fork)")
    ap.add_argument("--strict", action="store_true", help="exit 2 when there was any warning")
    args = ap.parse_args(argv)

    gen = Generator(args.checkout)
    try:
        gen.run()
    except SyntaxError as e:
        print(f"{PROG}: error: {e.filename}:{e.lineno}: cannot parse: {e.msg}", file=sys.stderr)
        return 1
    if args.commit is None:
        commit, tag = checkout_commit(args.checkout)
        if commit is None:
            commit = "unknown"
            gen.warnings.append(f"{args.checkout} is not the top of a git checkout; commit unknown (give --commit SHA)")
    else:
        # An abbreviated SHA or a tag is expanded when the checkout can resolve it.
        commit, tag = checkout_commit(args.checkout, args.commit)
        if commit is None:
            commit, tag = args.commit, None
    if commit != "unknown" and not re.fullmatch(r"[0-9a-f]{40}", commit):
        gen.warnings.append(f"commit {commit!r} is not a full 40-digit SHA; pdcheck reads the 40 characters after "
                            "'server_args.py @ '")
    sys.stdout.write(render(gen, commit, tag, args.repo, args.note, args.confidence))
    for w in gen.warnings:
        print(f"{PROG}: warning: {w}", file=sys.stderr)
    return 2 if args.strict and gen.warnings else 0


if __name__ == "__main__":
    sys.exit(main())
