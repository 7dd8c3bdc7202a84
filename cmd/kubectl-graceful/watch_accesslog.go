package main

import (
	"fmt"
	"io"
	"os"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
	"github.com/kubectl-graceful/kubectl-graceful/internal/probe"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
)

// openAtEnd opens the access log at path at its end: the probe's lines
// come after it.
func openAtEnd(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err == nil {
		if _, err = f.Seek(0, io.SeekEnd); err != nil {
			f.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("--probe-access-log: %v", err)
	}
	return f, nil
}

// attribute reads the lines the access log got since the probe started
// and sets each failed result's Proxy record (ingress.Attribute); the
// results must be the probe's own, all ended (after Stop). A log that
// cannot be read is a note on errOut, and no result gets a record.
func (r *probing) attribute(results []probe.Result, errOut io.Writer) {
	if r.log == nil {
		return
	}
	defer r.log.Close()
	records, err := ingress.ReadAccessLog(r.log, probe.MarkParam)
	if err != nil {
		fmt.Fprintln(errOut, termsafe.Escape("note: cannot read --probe-access-log, failures are not attributed: "+err.Error()))
		return
	}
	ingress.Attribute(results, records)
}
