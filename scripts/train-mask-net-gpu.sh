#!/usr/bin/env bash
# A mask-net round on a machine with a CUDA GPU and many cores: renderers write fresh scene shards
# while the trainer, fed by worker processes that cut the batches and draw the centre maps, trains
# the mask net on from the shipped one. Rendering is done on the CPU; the GPU would wait on one process.
#
#   scripts/train-mask-net-gpu.sh SHARED OUT [MINUTES] [PEAK_LR] [DEVICE] [BATCH] [FIRST_SEED]
#
# SHARED: the shared data folder (its cards.csv, cardart/, backgrounds/ and the foreign decks); OUT:
# where the trained cardmask.onnx, the checkpoint and the logs go; MINUTES of training (default 6);
# PEAK_LR (default 1e-3); DEVICE (default cuda); BATCH (default 128); FIRST_SEED of the renderers
# (default 1100: on up to 75 cores a round takes FIRST_SEED to FIRST_SEED + 99, so a later one starts
# 100 higher to render new scenes, more on more cores; the scenes of an earlier round in
# var/train-gpu-mask/scenes are trained on too).
# Calibrate the result afterwards (models/MODEL.md, "Retrain": the size first, then the threshold).
set -euo pipefail
. "$(dirname "$0")/gpu-args.sh"
cores=$(nproc)
# the trainer and its workers take a third of the cores; the rest render throughout, and for the first
# seconds the workers' cores render too, so the trainer starts on many scenes
workers=$(( cores / 3 > 2 ? cores / 3 - 1 : 1 ))
steady=$(( cores - workers - 1 > 1 ? cores - workers - 1 : 1 ))
plan() {  # FIRST_SEED: "data SEED SHARDS" for each renderer of the round
    local i
    for i in $(seq 0 $(( steady - 1 ))); do echo "data $(( $1 + i )) 1000"; done
    # (from FIRST_SEED + 50, or after the steady ones where there are more: training seeds, checked
    # as the others)
    local burst=$(( steady > 50 ? steady : 50 ))
    for i in $(seq 0 $(( workers ))); do echo "data $(( $1 + burst + i )) 4"; done  # about 25 seconds each
}
check_arguments() {  # SHARED OUT [MINUTES] [PEAK_LR] [DEVICE] [BATCH] [FIRST_SEED]
    local first=${7:-1100}
    check_training_options "${3:-6}" "${4:-1e-3}" "${5:-cuda}" "${6:-128}"
    if [[ $first =~ ^(0|[1-9][0-9]{0,8})$ ]]; then plan "$first"; fi | check_round_seeds "$first"
}
read_shared_and_out "$0" "$@"
minutes=${3:-6} lr=${4:-1e-3} device=${5:-cuda} batch=${6:-128} seed=${7:-1100}
PYTHON=${PYTHON:-python3}
work=var/train-gpu-mask
mkdir -p "$work/logs"
pids=()
stop_renderers() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap stop_renderers EXIT
render() {  # SEED SHARDS PER_SHARD: one renderer in the background, its log in $work/logs
    "$PYTHON" -m models.train --step data --seed "$1" --shards "$2" --per-shard "$3" --threads 1 \
        --work "$work" --out models --shared "$shared" >"$work/logs/render-$1.log" 2>&1 &
    pids+=($!)
}
# the seeds of this round (checked above): steady renderers first, then those of the first seconds
while read -r _ first shards; do render "$first" "$shards" 50; done < <(plan "$seed")
sleep 30
"$PYTHON" -m models.train --step mask --from-exported --fresh --device "$device" --mask-minutes "$minutes" \
    --mask-lr "$lr" --mask-batch "$batch" --mask-workers "$workers" --threads 2 --work "$work" --out "$out" \
    2>&1 | tee "$out/train.log"
cp "$work/mask.pt" "$out/"
stop_renderers
tail -n 2 "$work"/logs/*.log >"$out/render.log"
shards=$(ls "$work"/scenes/*.npz | wc -l)
echo "$shards scene shards of 50 scenes (100 patches)" | tee -a "$out/train.log"
