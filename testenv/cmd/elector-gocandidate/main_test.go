package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// fakeLock is a resourcelock.Interface that holds one record in memory and fails writes
// while failing is set.
type fakeLock struct {
	record  *resourcelock.LeaderElectionRecord
	failing bool
}

func (f *fakeLock) Get(context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	if f.record == nil {
		return nil, nil, errors.New("not found")
	}
	copied := *f.record
	return &copied, nil, nil
}

func (f *fakeLock) Create(_ context.Context, r resourcelock.LeaderElectionRecord) error {
	return f.Update(context.Background(), r)
}

func (f *fakeLock) Update(_ context.Context, r resourcelock.LeaderElectionRecord) error {
	if f.failing {
		return errors.New("injected")
	}
	f.record = &r
	return nil
}

func (f *fakeLock) RecordEvent(string) {}
func (f *fakeLock) Identity() string   { return "go1" }
func (f *fakeLock) Describe() string   { return "ns/lock" }

func newLock(fake *fakeLock) (*countingLock, *bytes.Buffer) {
	var buf bytes.Buffer
	return &countingLock{Interface: fake, out: &output{w: &buf}, renewDeadline: 2 * time.Second}, &buf
}

// events parses the EVENT lines written so far into kind and fields.
func events(t *testing.T, buf *bytes.Buffer) []map[string]string {
	t.Helper()
	var parsed []map[string]string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		words := strings.Fields(line)
		if len(words) < 3 || words[0] != "EVENT" {
			t.Fatalf("not an event line: %q", line)
		}
		fields := map[string]string{"kind": words[2], "at": words[1]}
		for _, w := range words[3:] {
			k, v, _ := strings.Cut(w, "=")
			fields[k] = v
		}
		parsed = append(parsed, fields)
	}
	return parsed
}

func number(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

func TestATermStartsAtTheFirstWriteNamingUsAndEndsWithTheLastSuccessfulWritesDeadline(t *testing.T) {
	fake := &fakeLock{}
	lock, buf := newLock(fake)
	ctx := context.Background()
	record := resourcelock.LeaderElectionRecord{HolderIdentity: "go1", LeaderTransitions: 7}

	before := nanos()
	if err := lock.Create(ctx, record); err != nil {
		t.Fatal(err)
	}
	renewFrom := nanos()
	if err := lock.Update(ctx, record); err != nil { // a renewal: no second "leading"
		t.Fatal(err)
	}
	fake.failing = true
	_ = lock.Update(ctx, record) // a failed renewal does not move the deadline
	lock.stopped("renew-failed")
	lock.stopped("renew-failed") // no open term: nothing more

	got := events(t, buf)
	if len(got) != 2 || got[0]["kind"] != "leading" || got[1]["kind"] != "stopped" {
		t.Fatalf("want leading then stopped, got %v", got)
	}
	if got[0]["token"] != "7" || got[1]["token"] != "7" || got[1]["reason"] != "renew-failed" {
		t.Fatalf("token or reason wrong: %v", got)
	}
	if at := number(t, got[0]["at"]); at < before {
		t.Fatalf("leading at %d, before the write began at %d", at, before)
	}
	activeUntil := number(t, got[1]["activeUntil"])
	deadline := (2 * time.Second).Nanoseconds()
	if activeUntil < renewFrom+deadline || activeUntil > nanos()+deadline {
		t.Fatalf("activeUntil %d is not the last successful write's start (%d or a little later) "+
			"plus renewDeadline", activeUntil, renewFrom)
	}
	if calls := lock.updates.Load() + lock.creates.Load(); calls != 3 {
		t.Fatalf("counted %d writes, made 3", calls)
	}
}

func TestAReleaseOverAnotherHoldersLeaseIsReported(t *testing.T) {
	fake := &fakeLock{record: &resourcelock.LeaderElectionRecord{HolderIdentity: "c2"}}
	lock, buf := newLock(fake)
	ctx := context.Background()
	if _, _, err := lock.Get(ctx); err != nil {
		t.Fatal(err)
	}
	if err := lock.Update(ctx, resourcelock.LeaderElectionRecord{}); err != nil { // a release
		t.Fatal(err)
	}
	got := events(t, buf)
	if len(got) != 1 || got[0]["kind"] != "releasedForeign" || got[0]["holder"] != "c2" {
		t.Fatalf("want one releasedForeign holder=c2, got %v", got)
	}

	fake.record = &resourcelock.LeaderElectionRecord{HolderIdentity: "go1"}
	buf.Reset()
	if _, _, err := lock.Get(ctx); err != nil {
		t.Fatal(err)
	}
	if err := lock.Update(ctx, resourcelock.LeaderElectionRecord{}); err != nil { // our own release
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Fatalf("releasing our own Lease is not foreign: %q", buf.String())
	}
}

func TestOnlyTheLeasesLockKindIsAccepted(t *testing.T) {
	base := []string{"--kubeconfig", "k", "--namespace", "n", "--lock-name", "l", "--identity", "i"}
	o, err := parseFlags(base)
	if err != nil || o.lockKind != "leases" || o.requestTimeout != o.renewDeadline {
		t.Fatalf("defaults: %+v, %v", o, err)
	}
	_, err = parseFlags(append(base, "--lock-kind", "configmaps"))
	if err == nil || !strings.Contains(err.Error(), "configmaps") || !strings.Contains(err.Error(), "leases") {
		t.Fatalf("configmaps should be refused naming both kinds, got %v", err)
	}
	if _, err := parseFlags(base[2:]); err == nil || !strings.Contains(err.Error(), "--kubeconfig") {
		t.Fatalf("a missing --kubeconfig should be named, got %v", err)
	}
}

type passThrough struct{ calls int }

func (p *passThrough) RoundTrip(r *http.Request) (*http.Response, error) {
	p.calls++
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
}

func TestThrottledRequestsGet429WithRetryAfterAndNeverReachTheServer(t *testing.T) {
	server := &passThrough{}
	f := &faults{next: server, random: newRandom(1)}
	f.set(1, 429, 3)
	req, _ := http.NewRequest(http.MethodGet, "https://x/apis/coordination.k8s.io/v1/namespaces/n/leases/l", nil)
	resp, err := f.RoundTrip(req)
	if err != nil || resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || server.calls != 0 {
		t.Fatalf("want a synthetic 429 with Retry-After 3, got %v %v (server saw %d)", resp, err, server.calls)
	}
	f.set(0, 0, 0)
	if resp, _ := f.RoundTrip(req); resp.StatusCode != 200 || server.calls != 1 {
		t.Fatalf("off: want the server's answer, got %d", resp.StatusCode)
	}
	if f.requests.Load() != 2 || f.injected.Load() != 1 || f.lists.Load() != 0 {
		t.Fatalf("counters: requests %d injected %d lists %d", f.requests.Load(), f.injected.Load(), f.lists.Load())
	}
}

func TestBenchEventsReportEverySuccessfulWriteNamingUs(t *testing.T) {
	fake := &fakeLock{}
	lock, buf := newLock(fake)
	lock.benchEvents = true
	ctx := context.Background()
	record := resourcelock.LeaderElectionRecord{HolderIdentity: "go1", LeaderTransitions: 3}
	if err := lock.Create(ctx, record); err != nil {
		t.Fatal(err)
	}
	if err := lock.Update(ctx, record); err != nil {
		t.Fatal(err)
	}
	fake.failing = true
	_ = lock.Update(ctx, record) // failed: no wrote line
	fake.failing = false
	_ = lock.Update(ctx, resourcelock.LeaderElectionRecord{}) // a release names nobody: no wrote line
	var kinds []string
	for _, e := range events(t, buf) {
		kinds = append(kinds, e["kind"])
	}
	if strings.Join(kinds, ",") != "wrote,leading,wrote" {
		t.Fatalf("want wrote,leading,wrote, got %v", kinds)
	}
}
