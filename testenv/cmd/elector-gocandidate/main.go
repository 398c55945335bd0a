// Command elector-gocandidate is a leader-election candidate built on client-go's
// k8s.io/client-go/tools/leaderelection, for tests that put Go candidates on the same
// lock as Elector's. It runs client-go's LeaderElector in a loop (a new elector after
// each term, as a restarted process would) and reports its terms on stdout in the line
// format of the Java reliability candidates:
//
//	EVENT <nanos> leading token=<leaderTransitions>
//	EVENT <nanos> stopped token=<leaderTransitions> reason=<why> activeUntil=<nanos>
//	EVENT <nanos> releasedForeign holder=<identity>
//
// With --bench-events, for the benchmarks, also:
//
//	EVENT <nanos> wrote token=<leaderTransitions>     a write naming us succeeded (its end)
//	EVENT <nanos> started token=<leaderTransitions>   OnStartedLeading runs
//
// releasedForeign: a release (holder cleared) was written over a Lease whose last read
// named another holder.
//
// <nanos> is CLOCK_MONOTONIC, the clock of Java's System.nanoTime() on Linux, so the
// instants compare with those of Java processes on the same machine.
//
// client-go has no fencing token; token is the Lease's leaderTransitions as written by
// the acquiring write. client-go leaves it unchanged when the same identity acquires
// again and restarts it at 0 when it creates the Lease, so it does not increase
// strictly from one term to the next.
//
// activeUntil is the start of the last successful acquire or renew write plus
// renewDeadline: the deadline an Elector term has (Term.activeUntilNanos). client-go
// itself keeps leading until its renew loop gives up (OnStoppedLeading), which can be
// later; the stopped line gives both, so the reader can take the earlier or either.
//
// Commands on stdin, one a line, for tests:
//
//	fail <share> <status>          answer a share of requests with a synthetic 5xx or 429
//	throttle <share> <seconds>     answer a share with 429 and Retry-After: <seconds>
//	off                            pass every request again
//	stats                          print STATS <nanos> key=value ... (counters so far,
//	                               goroutines, heap in use)
//
// SIGTERM or SIGINT cancels the elector; with --release-on-cancel (the default) client-go
// then releases a Lease it holds. Exit status 0 after a signal, 2 on bad flags.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// nanos reads CLOCK_MONOTONIC, as Java's System.nanoTime() does on Linux.
func nanos() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}

// output serialises the lines written to stdout.
type output struct {
	mu sync.Mutex
	w  io.Writer
}

func (o *output) line(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Fprintf(o.w, format+"\n", args...)
}

func (o *output) event(kind string, keyValues ...any) {
	var b strings.Builder
	fmt.Fprintf(&b, "EVENT %d %s", nanos(), kind)
	for i := 0; i+1 < len(keyValues); i += 2 {
		fmt.Fprintf(&b, " %v=%v", keyValues[i], keyValues[i+1])
	}
	o.line("%s", b.String())
}

type options struct {
	kubeconfig      string
	namespace       string
	lockName        string
	identity        string
	lockKind        string
	leaseDuration   time.Duration
	renewDeadline   time.Duration
	retryPeriod     time.Duration
	requestTimeout  time.Duration
	releaseOnCancel bool
	benchEvents     bool
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("elector-gocandidate", flag.ContinueOnError)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file (required)")
	fs.StringVar(&o.namespace, "namespace", "", "namespace of the lock (required)")
	fs.StringVar(&o.lockName, "lock-name", "", "name of the lock (required)")
	fs.StringVar(&o.identity, "identity", "", "this candidate's identity (required)")
	fs.StringVar(&o.lockKind, "lock-kind", "leases", "lock kind; client-go supports only leases")
	fs.DurationVar(&o.leaseDuration, "lease-duration", 15*time.Second, "client-go LeaseDuration")
	fs.DurationVar(&o.renewDeadline, "renew-deadline", 10*time.Second, "client-go RenewDeadline")
	fs.DurationVar(&o.retryPeriod, "retry-period", 2*time.Second, "client-go RetryPeriod")
	fs.DurationVar(&o.requestTimeout, "request-timeout", 0,
		"timeout of each API request (default: renew-deadline, as kube-controller-manager sets it)")
	fs.BoolVar(&o.releaseOnCancel, "release-on-cancel", true, "client-go ReleaseOnCancel")
	fs.BoolVar(&o.benchEvents, "bench-events", false,
		"also print a wrote line after each successful write naming us and a started line when "+
			"OnStartedLeading runs")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for name, value := range map[string]string{"--kubeconfig": o.kubeconfig,
		"--namespace": o.namespace, "--lock-name": o.lockName, "--identity": o.identity} {
		if value == "" {
			return o, fmt.Errorf("%s is required", name)
		}
	}
	if o.lockKind != resourcelock.LeasesResourceLock {
		return o, fmt.Errorf("--lock-kind %q is not supported: client-go v0.37 has only the %q lock "+
			"(its configmaps and endpoints locks are removed); use --lock-kind %s", o.lockKind,
			resourcelock.LeasesResourceLock, resourcelock.LeasesResourceLock)
	}
	if o.requestTimeout == 0 {
		o.requestTimeout = o.renewDeadline
	}
	return o, nil
}

// faults answers a share of requests with a synthetic error, like the Java HttpFaults,
// and counts requests.
type faults struct {
	next       http.RoundTripper
	mu         sync.Mutex
	random     *rand.Rand
	share      float64
	status     int
	retryAfter int64
	requests   atomic.Int64
	watches    atomic.Int64
	lists      atomic.Int64
	injected   atomic.Int64
}

func (f *faults) set(share float64, status int, retryAfter int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.share, f.status, f.retryAfter = share, status, retryAfter
}

func (f *faults) pick() (int, int64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.share > 0 && f.random.Float64() < f.share {
		return f.status, f.retryAfter, true
	}
	return 0, 0, false
}

func (f *faults) RoundTrip(r *http.Request) (*http.Response, error) {
	f.requests.Add(1)
	if r.URL.Query().Get("watch") == "true" {
		f.watches.Add(1)
	} else if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/leases") {
		f.lists.Add(1)
	}
	status, retryAfter, inject := f.pick()
	if !inject {
		return f.next.RoundTrip(r)
	}
	f.injected.Add(1)
	if r.Body != nil {
		r.Body.Close()
	}
	reason := "InternalError"
	if status == http.StatusTooManyRequests {
		reason = "TooManyRequests"
	}
	body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",`+
		`"message":"injected by elector-gocandidate","reason":%q,"code":%d}`, reason, status)
	header := http.Header{"Content-Type": {"application/json"}}
	if status == http.StatusTooManyRequests {
		header.Set("Retry-After", strconv.FormatInt(retryAfter, 10))
	}
	return &http.Response{
		Status: fmt.Sprintf("%d %s", status, reason), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: header,
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r,
	}, nil
}

func newRandom(seed int64) *rand.Rand {
	return rand.New(rand.NewSource(seed))
}

// countingLock wraps client-go's lock: it counts lock calls and sees every write, so it
// knows when a term began (the first successful write naming us) and the start of the
// last successful one (the term's deadline is that plus renewDeadline).
type countingLock struct {
	resourcelock.Interface
	out           *output
	renewDeadline time.Duration
	benchEvents   bool
	gets          atomic.Int64
	creates       atomic.Int64
	updates       atomic.Int64

	mu            sync.Mutex
	leading       bool
	token         int
	lastWriteFrom int64
	lastGetHolder string
}

func (l *countingLock) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	l.gets.Add(1)
	record, raw, err := l.Interface.Get(ctx)
	if err == nil {
		l.mu.Lock()
		l.lastGetHolder = record.HolderIdentity
		l.mu.Unlock()
	}
	return record, raw, err
}

func (l *countingLock) Create(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	l.creates.Add(1)
	from := nanos()
	err := l.Interface.Create(ctx, r)
	l.wrote(r, from, err)
	return err
}

func (l *countingLock) Update(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	l.updates.Add(1)
	from := nanos()
	err := l.Interface.Update(ctx, r)
	l.wrote(r, from, err)
	return err
}

func (l *countingLock) wrote(r resourcelock.LeaderElectionRecord, from int64, err error) {
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.HolderIdentity == "" && l.lastGetHolder != "" && l.lastGetHolder != l.Identity() {
		// client-go's release checks its own last observed record, not the one it just read:
		// after a failed renewal it can clear the Lease of the candidate that took over.
		l.out.event("releasedForeign", "holder", l.lastGetHolder)
	}
	if r.HolderIdentity != l.Identity() {
		return
	}
	l.lastWriteFrom = from
	if l.benchEvents {
		l.out.event("wrote", "token", r.LeaderTransitions)
	}
	if !l.leading {
		l.leading = true
		l.token = r.LeaderTransitions
		l.out.event("leading", "token", r.LeaderTransitions)
	}
}

// stopped reports the end of the open term, if any.
func (l *countingLock) stopped(reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.leading {
		return
	}
	l.leading = false
	l.out.event("stopped", "token", l.token, "reason", reason,
		"activeUntil", l.lastWriteFrom+l.renewDeadline.Nanoseconds())
}

func main() {
	klog.InitFlags(nil)
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "elector-gocandidate:", err)
		os.Exit(2)
	}
	out := &output{w: os.Stdout}

	config, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "elector-gocandidate: kubeconfig:", err)
		os.Exit(2)
	}
	config.Timeout = o.requestTimeout
	config.UserAgent = "elector-gocandidate/" + o.identity
	injector := &faults{random: newRandom(nanos())}
	config.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		injector.next = rt
		return injector
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "elector-gocandidate: client:", err)
		os.Exit(2)
	}
	lock := &countingLock{
		Interface: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: o.namespace, Name: o.lockName},
			Client:     client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: o.identity},
		},
		out:           out,
		renewDeadline: o.renewDeadline,
		benchEvents:   o.benchEvents,
	}

	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		cancel()
	}()
	go commands(os.Stdin, out, injector, lock)

	out.line("READY %d %s", nanos(), o.identity)
	for ctx.Err() == nil {
		elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock:            lock,
			LeaseDuration:   o.leaseDuration,
			RenewDeadline:   o.renewDeadline,
			RetryPeriod:     o.retryPeriod,
			ReleaseOnCancel: o.releaseOnCancel,
			Name:            o.lockName,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(context.Context) {
					if o.benchEvents {
						lock.mu.Lock()
						token := lock.token
						lock.mu.Unlock()
						out.event("started", "token", token)
					}
				},
				OnStoppedLeading: func() {
					reason := "renew-failed"
					if ctx.Err() != nil {
						reason = "cancelled"
					}
					lock.stopped(reason)
				},
			},
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "elector-gocandidate:", err)
			os.Exit(2)
		}
		elector.Run(ctx)
	}
	out.line("EXIT %d", nanos())
}

// commands reads fault and stats commands from in until it ends.
func commands(in io.Reader, out *output, f *faults, l *countingLock) {
	scanner := bufio.NewScanner(in)
	for scanner.Scan() {
		words := strings.Fields(scanner.Text())
		if len(words) == 0 {
			continue
		}
		switch {
		case words[0] == "off":
			f.set(0, 0, 0)
		case words[0] == "fail" && len(words) == 3:
			share, err1 := strconv.ParseFloat(words[1], 64)
			status, err2 := strconv.Atoi(words[2])
			if err1 != nil || err2 != nil || (status != 429 && (status < 500 || status > 599)) {
				out.line("ERROR fail needs a share and a status 429 or 5xx: %q", scanner.Text())
				continue
			}
			retryAfter := int64(0)
			if status == 429 {
				retryAfter = 1
			}
			f.set(share, status, retryAfter)
		case words[0] == "throttle" && len(words) == 3:
			share, err1 := strconv.ParseFloat(words[1], 64)
			seconds, err2 := strconv.ParseInt(words[2], 10, 64)
			if err1 != nil || err2 != nil || seconds < 0 {
				out.line("ERROR throttle needs a share and whole seconds: %q", scanner.Text())
				continue
			}
			f.set(share, 429, seconds)
		case words[0] == "stats":
			var memory runtime.MemStats
			runtime.ReadMemStats(&memory)
			out.line("STATS %d lockCalls=%d gets=%d creates=%d updates=%d requests=%d lists=%d "+
				"watches=%d injected=%d goroutines=%d heapBytes=%d", nanos(),
				l.gets.Load()+l.creates.Load()+l.updates.Load(), l.gets.Load(), l.creates.Load(),
				l.updates.Load(), f.requests.Load(), f.lists.Load(), f.watches.Load(),
				f.injected.Load(), runtime.NumGoroutine(), memory.HeapAlloc)
		default:
			out.line("ERROR unknown command %q", scanner.Text())
		}
	}
}
