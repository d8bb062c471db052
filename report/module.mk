# report/: gcbench report, a self-contained HTML page and a markdown file with SVG plots
# (svg.c), drawn from db/'s query functions and model/'s fit and what-if answers.
LIB_SRCS += $(wildcard report/*.c)
UNIT_TESTS += $(BUILD)/tests/test_report
INTEG_TESTS += tests/integration/test_report_page.sh
