#!/usr/bin/env bash
# tests/integration/test_report_page.sh: `gcbench model` then `gcbench report` on a small
# database (built by test_report --make-db), then the page loaded in headless Chromium:
# it loads, shows every chart (the <svg> elements and their titles in the rendered DOM),
# the console has no errors, and a screenshot can be taken. SKIP without chromium.
# GCBENCH_REPORT_SHOT=FILE keeps the screenshot (to look at it). The what-if section's
# crossovers of the fit are those `gcbench whatif --db` prints for the same points.
. "$(dirname "$0")/../lib.sh"

cases="cli_report whatif_matches_cli dom_has_every_chart console_clean screenshot"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gct-report-page.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$BIN/gcbench" ] || [ ! -x "$BUILD/tests/test_report" ]; then
	for c in $cases; do skip "$c" "build $BIN/gcbench and $BUILD/tests/test_report first"; done
	exit 0
fi
if ! "$BUILD/tests/test_report" --make-db "$tmp/r.db" 1 ||
   ! "$BIN/gcbench" model --db "$tmp/r.db" >"$tmp/model.out" 2>&1 ||
   ! "$BIN/gcbench" report --db "$tmp/r.db" --out "$tmp/out" >"$tmp/report.out" 2>&1; then
	fail cli_report "$(cat "$tmp/model.out" "$tmp/report.out" 2>/dev/null | tail -n 5 | tr '\n' ' ')"
	exit 1
fi
charts=$(ls "$tmp/out"/fig-*.svg | wc -l)
if grep -q "and $charts charts" "$tmp/report.out" && [ -s "$tmp/out/report.md" ] &&
   [ "$(grep -c '<svg ' "$tmp/out/index.html")" -eq "$charts" ] && [ "$charts" -ge 6 ]; then
	pass cli_report
else
	fail cli_report "expected >= 6 charts, each a file and inline: $(cat "$tmp/report.out")"
fi

# The row "| Sx | P | ... |" of the crossovers `gcbench whatif --db` prints at (S, P), in
# the report's words.
cli_row() {
	awk -v h=" compute $1x, codec $1x, $2 workers:" '$0 == h { on = 1; next }
		on && !/^  / { exit } on' "$tmp/whatif.out" |
	sed -n 's/^  [^ ]*  *//p' | sed -e 's/^wins below \(.*\) Gbit\/s$/\1/' \
		-e 's/^never wins.*/never/' -e 's/^wins at every bandwidth.*/still wins at 10000/' |
	{ row="| $1x | $2 |"; while read -r x; do row="$row $x |"; done; echo "$row"; }
}
missing=""
if "$BIN/gcbench" whatif --db "$tmp/r.db" --model resnet50 --batch 32 --workers 4,64 \
	--bandwidth 1gbit:30gbit --compute-speedup 1,4 >"$tmp/whatif.out" 2>&1; then
	for sp in "1 4" "1 64" "4 4" "4 64"; do
		row=$(cli_row $sp)              # 2 methods: 5 bars, else whatif's text changed
		[ "$(printf %s "$row" | tr -cd '|' | wc -c)" -eq 5 ] &&
			grep -qF -- "$row" "$tmp/out/report.md" || missing="$missing '$row'"
	done
else
	missing="whatif --db failed: $(tail -n 2 "$tmp/whatif.out" | tr '\n' ' ')"
fi
if [ -z "$missing" ] && grep -q '^| compute | workers | signsgd | powersgd rank=4 |$' \
	"$tmp/out/report.md"; then
	pass whatif_matches_cli
else
	fail whatif_matches_cli "report.md lacks the rows of whatif --db:${missing:- (the header)}"
fi

chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
	for c in dom_has_every_chart console_clean screenshot; do
		skip "$c" "chromium is not installed (apt-get install chromium; tools/deps.sh --extra)"
	done
	exit 0
fi
flags=(--headless --disable-gpu --no-sandbox --user-data-dir="$tmp/profile"
       --enable-logging=stderr --v=0 --allow-file-access-from-files)
url="file://$tmp/out/index.html"

timeout 120 "$chrome" "${flags[@]}" --dump-dom "$url" >"$tmp/dom.html" 2>"$tmp/chrome.err"
n=$(grep -o '<svg ' "$tmp/dom.html" | wc -l)
missing=""
for t in "Speedup vs bandwidth: resnet50" "Iteration time breakdown: resnet50, 4 workers" \
	 "Predicted vs measured iteration time" "Win/lose map (model, environment 0): resnet50" \
	 "Predicted speedup over sync SGD: resnet50, batch 64, 8 workers, compute 1x" \
	 "Predicted speedup over sync SGD: resnet50, batch 32, 4 workers, compute 4x"; do
	grep -qF "<title>$t" "$tmp/dom.html" || missing="$missing '$t'"
done
if [ "$n" -eq "$charts" ] && [ -z "$missing" ] && grep -q '&lt;b&gt;&amp;' "$tmp/dom.html" &&
   ! grep -q 'class="no-data"' "$tmp/dom.html"; then
	pass dom_has_every_chart
else
	fail dom_has_every_chart "rendered DOM has $n <svg> (files: $charts), missing titles:${missing:- none}"
fi

if grep -E "ERROR:CONSOLE|Uncaught|Refused to|net::ERR_" "$tmp/chrome.err" >"$tmp/errs"; then
	fail console_clean "$(head -n 3 "$tmp/errs" | tr '\n' ' ')"
else
	pass console_clean
fi

timeout 120 "$chrome" "${flags[@]}" --hide-scrollbars --window-size=1200,5200 \
	--screenshot="$tmp/shot.png" "$url" >/dev/null 2>&1
size=$(stat -c %s "$tmp/shot.png" 2>/dev/null || echo 0)
if [ "$size" -gt 20000 ] && [ "$(head -c 4 "$tmp/shot.png" | tail -c 3)" = PNG ]; then
	pass screenshot
	if [ -n "${GCBENCH_REPORT_SHOT:-}" ]; then cp "$tmp/shot.png" "$GCBENCH_REPORT_SHOT"; fi
else
	fail screenshot "no PNG screenshot ($size bytes)"
fi
exit 0
