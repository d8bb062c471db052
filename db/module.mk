# db/: the SQLite results database: its schema and every SQL statement (the query
# functions of db/q_*.h). db/schema.sql is embedded into the library as a C string ($(BUILD)/gen/db_schema.inc), so the binary needs no installed file.
LIB_SRCS += db/db.c db/ingest.c db/status.c db/resume.c db/engine.c db/q_regress.c \
	db/q_history.c db/q_summary.c db/q_report.c db/q_model.c db/q_calibration.c
UNIT_TESTS += $(BUILD)/tests/test_db $(BUILD)/tests/test_db_queries $(BUILD)/tests/test_db_q
BENCHES += bench-db

$(BUILD)/gen/db_schema.inc: db/schema.sql
	@mkdir -p $(@D)
	$(if $(Q),@echo "  GEN     $@")
	$(Q)sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/db/db.o: $(BUILD)/gen/db_schema.inc
$(BUILD)/obj/db/db.o: CPPFLAGS += -I$(BUILD)/gen

$(BUILD)/bin/bench_db: db/bench_db.c $(LIB)
	@mkdir -p $(@D) $(BUILD)/obj/db
	$(if $(Q),@echo "  BENCH   $@")
	$(Q)$(CC) $(CPPFLAGS) -MF $(BUILD)/obj/db/bench_db.d $(CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

bench-db: $(BUILD)/bin/bench_db
	$(BUILD)/bin/bench_db

bench: bench-db
UNIT_TESTS += $(BUILD)/tests/test_db_accuracy $(BUILD)/tests/test_db_baselines \
	      $(BUILD)/tests/test_db_network
INTEG_TESTS += tests/integration/test_readonly_db.sh
