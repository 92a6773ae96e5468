#!/usr/bin/env bash
# A crop-net round on a machine with a CUDA GPU and many cores: renderers write fresh shards (crops
# of the labelled cards, and of the quads the shipped detector finds) while the trainer, fed by
# worker processes, trains the crop net on from the shipped one. Rendering and cutting batches are
# done on the CPU; the GPU would wait on a single process.
#
#   scripts/train-crop-net-gpu.sh SHARED OUT [MINUTES] [PEAK_LR] [DEVICE] [FIRST_SEED] [CHANNELS]
#
# SHARED: the shared data folder (its cards.csv, cardart/ and backgrounds/); OUT: where the trained
# cardface.onnx, the checkpoint and the logs go; MINUTES of training (default 7); PEAK_LR (default
# 1e-3); DEVICE (default cuda); FIRST_SEED of the renderers (default 2600; on 16 cores the first kind
# of crops renders from FIRST_SEED to FIRST_SEED + 50, the detector's quads from FIRST_SEED + 201 to
# FIRST_SEED + 249, more with more cores: a later round picks a FIRST_SEED 300 higher to cut new crops;
# below 1000 the validation seeds lie near, and with many cores a renderer may land on one: refused);
# CHANNELS, LATExMAPS, the crop net's widths (default 128x48, the shipped net's; a wider one starts
# from the shipped net widened: models/weights.py, load_exported_widened).
# Calibrate the result afterwards (models/MODEL.md, "Retrain").
set -euo pipefail
. "$(dirname "$0")/gpu-args.sh"
cores=$(nproc)
# a third of the cores render throughout (half the first kind of crops, half the detector's quads),
# the rest cut batches; for the first seconds the rest render too, so the trainer starts on many scenes
steady=$(( cores / 3 > 2 ? cores / 3 : 2 ))
burst=$(( cores - steady > 0 ? cores - steady : 0 ))
workers=$(( cores - steady - 1 > 1 ? cores - steady - 1 : 1 ))
plan() {  # FIRST_SEED: "KIND SEED SHARDS" for each renderer of the round (the detector's from SEED + 100)
    local i
    for i in $(seq 0 $(( steady - 1 ))); do
        if (( i % 2 )); then echo "det $(( $1 + 100 + i )) 1000"; else echo "data $(( $1 + i )) 1000"; fi
    done
    # (from FIRST_SEED + 40, or after the steady ones where there are more)
    local after=$(( steady > 40 ? steady : 40 ))
    for i in $(seq 0 $(( burst - 1 ))); do  # about half a minute of rendering each
        if (( i % 2 )); then echo "det $(( $1 + 100 + after + i )) 4"; else echo "data $(( $1 + after + i )) 3"; fi
    done
}
check_arguments() {  # SHARED OUT [MINUTES] [PEAK_LR] [DEVICE] [FIRST_SEED] [CHANNELS]
    local first=${6:-2600}
    # (the round trains on from the shipped net: as wide as it, or wider, up to the trainer's 4096)
    local channels=${7:-128x48}
    if ! [[ $channels =~ ^([1-9][0-9]{0,3})x([1-9][0-9]{0,3})$ ]] || (( BASH_REMATCH[1] < 128 || BASH_REMATCH[1] > 4096 \
            || BASH_REMATCH[2] < 48 || BASH_REMATCH[2] > 4096 )); then
        echo "error: CHANNELS '$channels' must be LATExMAPS, LATE from 128 and MAPS from 48 (the shipped net's widths) to 4096" >&2
        exit 2
    fi
    check_training_options "${3:-7}" "${4:-1e-3}" "${5:-cuda}"
    if [[ $first =~ ^(0|[1-9][0-9]{0,8})$ ]]; then plan "$first"; fi | check_round_seeds "$first"
}
read_shared_and_out "$0" "$@"
minutes=${3:-7} lr=${4:-1e-3} device=${5:-cuda} seed=${6:-2600} channels=${7:-128x48}
PYTHON=${PYTHON:-python3}
work=var/train-gpu
mkdir -p "$work/logs"
pids=()
stop_renderers() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap stop_renderers EXIT
render() {  # KIND SEED SHARDS: one renderer process in the background, its log in var/train-gpu/logs
    local step=data
    [ "$1" = det ] && step=detector-crops
    "$PYTHON" -m models.train --step "$step" --seed "$2" --shards "$3" --detector-shards "$3" \
        --per-shard 100 --threads 1 --work "$work" --out models --shared "$shared" >"$work/logs/render-$1-$2.log" 2>&1 &
    pids+=($!)
}
while read -r kind first shards; do render "$kind" "$first" "$shards"; done < <(plan "$seed")
sleep 35
"$PYTHON" -m models.train --step crops --from-exported --fresh --device "$device" --crop-minutes "$minutes" \
    --crop-lr "$lr" --crop-late-channels "${channels%x*}" --crop-map-channels "${channels#*x}" --crop-batch 512 --crop-workers "$workers" --threads 2 --work "$work" --out "$out" \
    2>&1 | tee "$out/train.log"
cp "$work/crops.pt" "$out/"
stop_renderers
tail -n 2 "$work"/logs/*.log >"$out/render.log"
shards=$(ls "$work"/crops/*.npz | wc -l) detector=$(ls "$work"/crops/*-det*.npz 2>/dev/null | wc -l)
echo "$shards crop shards, $detector of the detector's quads" | tee -a "$out/train.log"
