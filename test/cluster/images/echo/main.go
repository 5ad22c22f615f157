// Command echo is the cluster's sample workload (kbgp.local/echo:test): an HTTP
// server on :8080 that answers every request with its pod and node names, and a
// TCP server on :9000 that answers every line it reads with the same, so a client
// can hold one connection open through a rollout and see it survive. On SIGTERM it
// keeps serving for 10 s, the time every node's kube-proxy needs to stop sending it
// new connections even on a busy machine, then finishes the requests in flight, so a
// drain loses no request.
package main

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	who := fmt.Sprintf("%s %s", os.Getenv("POD_NAME"), os.Getenv("NODE_NAME"))
	ln, err := net.Listen("tcp", ":9000")
	if err != nil {
		log.Fatal(err)
	}
	go serveLines(ln, who)
	srv := &http.Server{Addr: ":8080", Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, who)
	})}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		<-sig
		time.Sleep(10 * time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		os.Exit(0)
	}()
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		log.Fatal(err)
	}
	select {}
}

func serveLines(ln net.Listener, who string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go func() {
			defer c.Close()
			sc := bufio.NewScanner(c)
			for sc.Scan() {
				if _, err := fmt.Fprintf(c, "%s %s\n", who, sc.Text()); err != nil {
					return
				}
			}
		}()
	}
}
