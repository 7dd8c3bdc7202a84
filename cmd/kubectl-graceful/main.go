// Command kubectl-graceful is a kubectl plugin that finds and prevents the
// requests dropped when pods terminate: `kubectl graceful audit` (and
// `audit explain`), `watch pod`, `watch TYPE/NAME`, `watch node`, `drain
// node` (with --watch), `completion` and `version`. It is the only place in
// the project that calls os.Exit.
package main

import (
	"context"
	"fmt"
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	// The garbage collector's policy, set before the other packages' init.
	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	_ "github.com/kubectl-graceful/kubectl-graceful/internal/gcpolicy"
)

func main() {
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	in := &interrupt{errOut: os.Stderr, exit: os.Exit}
	ctx, stop := in.listen(context.Background())
	root := newCmdRoot(streams, in)
	root.SetArgs(rootArgs(os.Args[0], os.Args[1:]))
	err := root.ExecuteContext(ctx)
	stop()
	if msg := cliutil.Message(err); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
	}
	os.Exit(cliutil.CodeOf(err))
}
