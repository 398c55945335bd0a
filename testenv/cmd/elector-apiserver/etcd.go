package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// startEtcd runs a single-member etcd in this process, on free loopback ports,
// with its data in dir. It is tuned for tests: no fsync, no gateway, no metrics
// listener, warnings and errors only (they go to stderr, i.e. the log file).
func startEtcd(ctx context.Context, dir string, clientPort int) (*embed.Etcd, string, error) {
	var err error
	if clientPort == 0 {
		if clientPort, err = freePort(); err != nil {
			return nil, "", err
		}
	}
	peerPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	clientURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(clientPort))}
	peerURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(peerPort))}

	cfg := embed.NewConfig()
	cfg.Name = "elector"
	cfg.Dir = dir
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	// Only read on first start; a restart with data ignores it, so a new peer
	// port is harmless for this single member.
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = true
	cfg.EnableGRPCGateway = false
	cfg.Logger = "zap"
	cfg.LogLevel = "warn"
	cfg.LogOutputs = []string{"stderr"}

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", err
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, clientURL.String(), nil
	case err := <-e.Err():
		e.Close()
		return nil, "", err
	case <-ctx.Done():
		e.Close()
		return nil, "", ctx.Err()
	case <-time.After(time.Minute):
		e.Close()
		return nil, "", fmt.Errorf("not ready after 1m")
	}
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before we bind it again; on a test machine that is rare enough.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
