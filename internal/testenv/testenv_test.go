package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestMissing runs Missing in a subtest with and without CI, and checks
// that it skips outside CI and fails under it.
func TestMissing(t *testing.T) {
	for _, tt := range []struct {
		ci                 string
		wantSkip, wantFail bool
	}{
		{"", true, false},
		{"true", false, true},
	} {
		t.Run("CI="+tt.ci, func(t *testing.T) {
			t.Setenv("CI", tt.ci)
			var skipped, failed bool
			done := make(chan struct{})
			// Run Missing on a fake T in its own goroutine, since Skip and
			// Fatal end it with runtime.Goexit.
			ft := &fakeT{TB: t}
			go func() {
				defer close(done)
				defer func() { skipped, failed = ft.skipped, ft.failed }()
				Missing(ft, "needs %s", "a peer")
			}()
			<-done
			if skipped != tt.wantSkip || failed != tt.wantFail {
				t.Errorf("skipped, failed = %v, %v; want %v, %v", skipped, failed, tt.wantSkip, tt.wantFail)
			}
			if ft.msg == "" {
				t.Error("no message")
			}
		})
	}
}

// fakeT records Skip and Fatal instead of ending the real test.
type fakeT struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Skip(args ...any) {
	f.skipped, f.msg = true, args[0].(string)
	runtime.Goexit()
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed, f.msg = true, format
	runtime.Goexit()
}

// TestRoot checks that Root finds the repository two levels above this
// package.
func TestRoot(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Root(t), filepath.Dir(filepath.Dir(wd)); got != want {
		t.Errorf("Root = %s; want %s", got, want)
	}
}
