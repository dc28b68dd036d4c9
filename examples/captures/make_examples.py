#!/usr/bin/env python3
"""Writes the example captures in this folder.

Each message is built the way SGLang's decode side builds it (byte layouts from
../../../shared/reference/sglang-pd-wire-and-checks.md sections 1-3), with
Python's own struct module as the reference for native and little-endian
packing, so the C++ codecs are checked against an independent encoder. The
numbers are those of a real deployment shape; the pointers are plausible CUDA
addresses, not synthetic ones. Run from anywhere: python3 make_examples.py
"""

import base64
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def ascii_int(n):
    return str(n).encode("ascii")


def native(fmt, values):
    return b"".join(struct.pack(fmt, v) for v in values)


def int_lists(lists, fmt):
    """pack_int_lists: u32 count, one u32 byte length per list, then the bodies (all little-endian)."""
    if not lists:
        return b""
    bodies = [struct.pack("<%d%s" % (len(a), fmt), *a) for a in lists]
    return struct.pack("<%dI" % (len(bodies) + 1), len(bodies), *(len(b) for b in bodies)) + b"".join(bodies)


def capture_doc(backend, kind, frames, note, generation=None, host=None, time=None):
    doc = {"backend": backend, "kind": kind}
    if generation:
        doc["generation"] = generation
    if host:
        doc["host"] = host
    if time:
        doc["time"] = time
    doc["note"] = note
    doc["frames_base64"] = [base64.b64encode(f).decode("ascii") for f in frames]
    return doc


# Qwen3-Next-80B-A3B decode, TP 2, rank 1 (sglang-state-layout.md §6): 36 GDN
# layers (every 4th of 48 is full attention), conv (4096, 3) bf16 = 24576 bytes,
# dim 4096; temporal (16, 128, 128) fp32 = 1048576 bytes, dim 16. 257 slots.
GDN_LAYERS = [i for i in range(48) if i % 4 != 3]
ATTN_LAYERS = [i for i in range(48) if i % 4 == 3]
SLOTS = 257
CONV_ITEM, CONV_DIM = 24576, 4096
TEMP_ITEM, TEMP_DIM = 1048576, 16
MIB2 = 2 << 20


def round_up(n, to):
    return (n + to - 1) // to * to


def mamba_pointers(base):
    ptrs = []
    at = base
    for item in [CONV_ITEM] * len(GDN_LAYERS) + [TEMP_ITEM] * len(GDN_LAYERS):
        ptrs.append(at)
        at += round_up(SLOTS * item, MIB2)
    return ptrs


STATE_PTRS = mamba_pointers(0x7F3A_4000_0000)
STATE_LENS = [CONV_ITEM] * 36 + [TEMP_ITEM] * 36
STATE_DIMS = [CONV_DIM] * 36 + [TEMP_DIM] * 36
STATE_IDS = GDN_LAYERS + GDN_LAYERS
# 12 full-attention layers, K and V each: 1 KV head of 256 per rank, bf16, page size 1.
KV_ITEM = 1 * 256 * 2
KV_PTRS = [0x7F39_0000_0000 + i * round_up(400000 * KV_ITEM, MIB2) for i in range(24)]
KV_IDS = ATTN_LAYERS + ATTN_LAYERS
AUX_PTRS = [0x7F5C_8000_0000 + i * 0x10_0000 for i in range(3)]
IP, PORT, SESSION = "10.20.0.12", 17853, "10.20.0.12:15433"


def examples():
    """(file name, capture document, frames) of every example."""
    out = []
    head = [b"None", IP.encode(), ascii_int(PORT), SESSION.encode(), native("Q", KV_PTRS), native("Q", AUX_PTRS)]
    tail_ranks = [ascii_int(1), ascii_int(2), ascii_int(KV_ITEM)]

    components = head + [int_lists([STATE_PTRS], "Q")] + tail_ranks + [
        int_lists([STATE_LENS], "I"),
        int_lists([STATE_DIMS], "I"),
        native("I", KV_IDS),
        int_lists([STATE_IDS], "I"),
        b"",  # staging base: staging off
        b"",  # staging size
        ascii_int(1),  # dcp size
        ascii_int(0),  # dcp rank
        b"",  # staging slot layer ids
    ]
    assert len(components) == 19
    out.append(example(
        "qwen3-next-tp2-rank1-mooncake-components.json", "mooncake", "registration", components,
        "Qwen3-Next-80B-A3B decode, TP 2, rank 1, Mooncake, per-component registration (v0.5.17-like): "
        "72 state entries (36 conv then 36 temporal) with global layer ids",
        host="decode-0", time="2026-08-12T09:41:07Z"))

    flat = head + [native("Q", STATE_PTRS)] + tail_ranks + [
        native("I", STATE_LENS),
        native("I", STATE_DIMS),
        b"0",  # enable_hisparse
        b"",  # staging base
        b"",  # staging size
    ]
    assert len(flat) == 15
    out.append(example(
        "qwen3-next-tp2-rank1-mooncake-flat.json", "mooncake", "registration", flat,
        "the same decode rank on a flat-era SGLang (v0.5.9-v0.5.11): one state_type, flat native arrays; "
        "a components prefill misreads frame 6", host="decode-0", time="2026-03-02T17:05:55Z"))

    # Mori TransferInfo (per-component): a request whose decode has two state
    # components, one slot index in each (MAMBA slot 17, then the second component's 42).
    mori_ti = [
        b"MoriMsgGuard", ascii_int(7340032117), IP.encode(), ascii_int(PORT),
        b"io-decode-dp0-tp1-pid4121-10.20.0.12-5f0c2a9e",
        struct.pack("<4i", 1022, 1023, 1024, 1025),  # KV page indices
        ascii_int(88),  # aux index
        int_lists([[17], [42]], "i"),
        ascii_int(1),  # required_dst_info_num
        b"",  # decode_prefix_len: none
    ]
    out.append(example(
        "mori-transfer-info-two-state-indices.json", "mori", "transfer_info", mori_ti,
        "Mori per-request TransferInfo with two state components: dst_state_indices [[17], [42]]",
        host="decode-0", time="2026-06-20T11:02:31Z"))

    # Seed failure 2: a scheduler batched two requests' Mamba slots (17 and 18)
    # into one send; Mori's _send_mamba_state refuses it.
    mori_batched = list(mori_ti)
    mori_batched[7] = int_lists([[17, 18]], "i")
    out.append(example(
        "mori-transfer-info-batched-mamba-indices.json", "mori", "transfer_info", mori_batched,
        "Mori per-request TransferInfo whose MAMBA component carries two slots, as a batched send would: "
        "dst_state_indices [[17, 18]]",
        host="decode-0", time="2026-06-20T11:02:32Z"))

    # A NIXL per-component registration of the same rank (guard + 23 payload frames).
    nixl = [
        b"NixlMsgGuard", b"None", IP.encode(), ascii_int(PORT), b"3f1c9a7e-2b4d-4c61-9a0e-5d7f1b2c3e4a",
        b"\x00nixl-agent-metadata\x01\x02", native("Q", KV_PTRS), native("Q", AUX_PTRS),
        int_lists([STATE_PTRS], "Q"), ascii_int(1), ascii_int(2), ascii_int(1), ascii_int(KV_ITEM),
        int_lists([STATE_LENS], "I"), int_lists([STATE_DIMS], "I"), b"", b"", ascii_int(400000),
        ",".join(["VRAM"] * 24).encode(), native("Q", [KV_ITEM] * 24), int_lists([STATE_IDS], "I"),
        native("I", KV_IDS), ascii_int(1), ascii_int(0),
    ]
    assert len(nixl) == 24
    out.append(example(
        "qwen3-next-tp2-rank1-nixl-components.json", "nixl", "registration", nixl,
        "the same decode rank over NIXL, per-component registration (guard + 23 payload frames)",
        host="decode-0", time="2026-07-30T08:15:00Z"))
    return out


def example(name, backend, kind, frames, note, host=None, time=None):
    return name, capture_doc(backend, kind, frames, note, host=host, time=time), frames


def main():
    for name, doc, _ in examples():
        with open(os.path.join(HERE, name), "w") as out:
            json.dump(doc, out, indent=2)
            out.write("\n")


if __name__ == "__main__":
    main()
