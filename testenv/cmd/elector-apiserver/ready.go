package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// errExited means kube-apiserver returned before it was ready.
var errExited = errors.New("kube-apiserver exited")

// waitReady polls /readyz with the admin certificate until it answers "ok",
// the API server exits, the context is cancelled or the timeout passes.
func waitReady(ctx context.Context, server string, keys pki, timeout time.Duration, apiDone <-chan struct{}) error {
	caPEM, err := os.ReadFile(keys.caCert())
	if err != nil {
		return fail("reading the CA", err, "")
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cert, err := tls.LoadX509KeyPair(keys.adminCert(), keys.adminKey())
	if err != nil {
		return fail("loading the admin certificate", err, "delete the pki directory of the data dir to regenerate it")
	}
	client := &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}},
		},
	}
	defer client.CloseIdleConnections()

	deadline := time.After(timeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last := "no answer yet"
	for {
		select {
		case <-apiDone:
			return errExited
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fail(fmt.Sprintf("kube-apiserver not ready after %s (last /readyz: %s)", timeout, last), nil,
				"raise --ready-timeout on a slow machine, or read the log file")
		case <-tick.C:
		}
		resp, err := client.Get(server + "/readyz")
		if err != nil {
			last = err.Error()
			continue
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && strings.TrimSpace(string(body)) == "ok" {
			return nil
		}
		last = resp.Status
	}
}

// processStart is when the kernel started this process (from /proc, in
// 1/100 s), so start-up time includes loading and initialising the binary.
var processStart = func() func() time.Time {
	initTime := time.Now() // fallback where /proc is not available
	return func() time.Time {
		stat, err1 := os.ReadFile("/proc/self/stat")
		uptime, err2 := os.ReadFile("/proc/uptime")
		if err1 != nil || err2 != nil {
			return initTime
		}
		// Field 22 is the start time in clock ticks since boot; the fields
		// are counted after the parenthesised command name.
		after := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		upFields := strings.Fields(string(uptime))
		if len(after) < 20 || len(upFields) < 1 {
			return initTime
		}
		ticks, err1 := strconv.ParseFloat(after[19], 64)
		up, err2 := strconv.ParseFloat(upFields[0], 64)
		if err1 != nil || err2 != nil {
			return initTime
		}
		const userHZ = 100 // fixed for the /proc ABI on Linux
		age := time.Duration((up - ticks/userHZ) * float64(time.Second))
		if age < 0 || age > time.Since(initTime)+time.Minute {
			return initTime
		}
		return time.Now().Add(-age)
	}
}()
