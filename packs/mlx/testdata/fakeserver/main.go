// Command fakeserver stands in for a model server in the mlx pack's tests:
// it listens on --port until killed; --exit makes it fail at once with a
// message on stderr; --silent makes it run without ever listening;
// --ignore-term makes it ignore SIGTERM; --pidfile writes its pid there.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	model := flag.String("model", "", "model")
	port := flag.Int("port", 0, "port")
	exit := flag.Bool("exit", false, "fail at once")
	silent := flag.Bool("silent", false, "never listen")
	ignoreTerm := flag.Bool("ignore-term", false, "ignore SIGTERM")
	pidfile := flag.String("pidfile", "", "write the pid here")
	flag.Parse()
	if *pidfile != "" {
		if err := os.WriteFile(*pidfile, []byte(fmt.Sprint(os.Getpid())), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if *exit {
		fmt.Fprintf(os.Stderr, "error: cannot load model %s: out of memory\n", *model)
		os.Exit(3)
	}
	if *silent {
		time.Sleep(time.Hour)
		return
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
		select {}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	_ = ln.Close()
}
