package mcpform

import (
	"testing"
	"time"
)

// TestDaysIn checks the calendar of isDate against time.Date's, over four
// centuries, whose leap-year rules repeat, and around the years' ends.
func TestDaysIn(t *testing.T) {
	for _, y := range []int{0, 1, 4, 100, 1600, 1700, 1900, 2000, 2024, 2026, 2100, 2400, 9999} {
		for m := 1; m <= 12; m++ {
			want := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
			if got := daysIn(y, m); got != want {
				t.Errorf("daysIn(%d, %d) = %d, want %d", y, m, got, want)
			}
		}
	}
	for y := 1600; y < 2000; y++ {
		want := time.Date(y, time.March, 0, 0, 0, 0, 0, time.UTC).Day()
		if got := daysIn(y, 2); got != want {
			t.Errorf("daysIn(%d, 2) = %d, want %d", y, got, want)
		}
	}
}
