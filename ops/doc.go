// Package ops holds the operations a user runs beside plans and applies:
// the janitor that removes storage no environment needs any more
// (janitor.go), the compaction of settled parquet partitions (compact.go),
// the carrying over of a state store to the current fingerprint version
// (migrate.go), the data of the DAG drawing (graph.go) and the run tick's
// schedule (schedule.go).
//
// It builds on planner (analyses, locks, naming of physical relations);
// planner never imports it.
package ops
