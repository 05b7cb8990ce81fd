# Sourced by the train_default_*.sh rebuild scripts: `stage NAME` prints how long the stage that
# just ended took, `stages_done` the whole run's wall time. STAGE_PREFIX names the script.
stage_run_start=$(date +%s)
stage_start=$stage_run_start

stage() {
    local now
    now=$(date +%s)
    echo "$STAGE_PREFIX: $1 took $((now - stage_start)) s"
    stage_start=$now
}

stages_done() {  # $1: what was made
    echo "$STAGE_PREFIX: done in $(( $(date +%s) - stage_run_start )) s of wall time; $1"
}
