// Command apiforward forwards TCP connections from one address to another:
//
//	apiforward LISTEN TARGET
//
// The real nodes in network namespaces of their own reach the local
// cluster's API server, which listens on the machine's loopback only,
// through it (internal/realnode). It ends when killed.
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: apiforward LISTEN TARGET")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		go forward(c, os.Args[2])
	}
}

// forward copies both ways between c and a new connection to target, and
// closes both once either side ends.
func forward(c net.Conn, target string) {
	defer c.Close()
	t, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer t.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(t, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, t); done <- struct{}{} }()
	<-done
}
