// Package sanitize makes strings that users control (object names, annotation values,
// status messages, peer names) safe to put into one log line, one metric label value,
// one Event message or one cell of a printed table, where a line break or a NUL could
// otherwise forge an extra entry that a reader or a script would trust.
package sanitize
