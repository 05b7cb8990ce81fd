#!/usr/bin/env bash
# usage: eval_librivox_test.sh HARNESS ASR_WER TRANSCRIBER
set -euo pipefail
out=$(bash "$1" --asr-wer "$2" -- bash "$3")
echo "$out"
expected="WER 28.17% (20 errors / 71 words"
[[ $(echo "$out" | grep -c -F "$expected") -eq 2 ]] || { echo "FAIL: expected '$expected' for both columns"; exit 1; }
if bash "$1" --asr-wer "$2" -- false > /dev/null 2>&1; then echo "FAIL: a failing transcriber was accepted"; exit 1; fi
echo PASS
