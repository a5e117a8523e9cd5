#!/bin/bash
# Device call TTTTTTTTT (thirty-first session): (1) tests/learning with CUDA present again, after SSSSSSSSS's
# findings (the snapshot carries results/ this time: the walkthroughs read it); (2) every kernel-bench and
# kernel-inspect command the Markdown documents (tests/documented_commands.py), as a learner would type it,
# in file order, each under its own time limit, with its exit status.
W=/tmp/wt9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1  # the working tree as sent (results/ included: 34 MB with the tar was too much)
export PYTHONPATH=src:.
START=$(date +%s)
TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest -q -n 16 -p no:cacheprovider -rfEs -W ignore --timeout 150 \
  tests/learning > "$W/w/h200-gpu-tests-learning-session31.log" 2>&1
echo "learning rc=$?"; grep -E "^FAILED|^ERROR|^SKIPPED|passed|failed" "$W/w/h200-gpu-tests-learning-session31.log" | tail -30 | cut -c1-240
for wrong in triton_persistent_step_one triton_split_k_last_by_index; do
  exercise=${wrong%_step_one}; exercise=${exercise%_last_by_index}
  cp learning/exercises/$exercise.py "$W/$exercise.py.starter"
  cp tests/learning/wrong_answers/$wrong.py learning/exercises/$exercise.py
  timeout 200 python -m learning.check $exercise > "$W/w/h200-learning-check-$wrong-session31.log" 2>&1
  echo "check $wrong rc=$?"; head -c 1500 "$W/w/h200-learning-check-$wrong-session31.log"; echo
  cp "$W/$exercise.py.starter" learning/exercises/$exercise.py
done
LOG="$W/w/h200-documented-commands-session31.log"
python -m tests.documented_commands tilelab.bench tilelab.inspect tilelab.doctor > "$W/commands.tsv"
echo "$(wc -l < "$W/commands.tsv") documented commands" | tee "$LOG"
while IFS=$'\t' read -r where command; do
  if (( $(date +%s) - START > 520 )); then echo "SKIPPED (time) $where: $command" >> "$LOG"; continue; fi
  t0=$(date +%s.%N)
  out=$(timeout 150 bash -c "$command" 2>&1 < /dev/null); rc=$?
  t1=$(date +%s.%N)
  printf '\n=== rc=%s %.1fs %s\n$ %s\n%s\n' "$rc" "$(awk "BEGIN{print $t1 - $t0}")" "$where" "$command" "$(echo "$out" | tail -25)" >> "$LOG"
  echo "rc=$rc $where"
done < "$W/commands.tsv"
cp -r results/local "$W/w/local-outputs" 2>/dev/null
tar -C "$W" -czf "$OUT/ttttttttt.tar.gz" w
