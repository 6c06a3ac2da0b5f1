package console

import (
	"fmt"
	"math"
	"time"

	"github.com/gofiber/fiber/v2"

	"tandem/adapters/web"
)

// The Traffic page: this process's requests of the last 15 minutes, from
// web.Traffic (in memory, per process: behind a load balancer each
// process shows its own share). Charts are SVG drawn here, on the server,
// with presentation attributes only: no script and no inline style, so
// the console's CSP stays as strict as it is.

// Chart sizes, in SVG user units.
const (
	chartW, chartH = 900, 160
	sparkW, sparkH = 150, 28
	chartPad       = 34 // room for the axis labels on the left
)

// bar is one rectangle of a chart.
type bar struct {
	X, Y, W, H float64
	Title      string // the tooltip: the figures the bar stands for
}

// trafficChart is the whole process: requests per minute (bars, 5xx in
// red on top) and the p99 latency (a line on its own scale).
type trafficChart struct {
	W, H, Pad          float64
	Requests, Errors   []bar
	P99                string // the polyline's points
	MaxRequests, MaxMS string // the scales' tops
	Labels             []axisLabel
}

type axisLabel struct {
	X    float64
	Text string
}

// routeRow is one line of the routes table.
type routeRow struct {
	Method, Route                  string
	Requests, ClientErrors, Errors int
	ErrorRate                      string
	P50, P99                       string
	Spark                          []bar
	SparkW, SparkH                 float64
	HasServerErrors                bool
}

func (h *handler) trafficPage(c *fiber.Ctx) error {
	if h.Traffic == nil {
		return h.render(c, "traffic", fiber.Map{"Title": "Traffic"})
	}
	s := h.Traffic.Snapshot()
	rows := make([]routeRow, 0, len(s.Routes))
	for _, r := range s.Routes {
		rows = append(rows, routeRow{Method: r.Method, Route: r.Route, Requests: r.Requests, ClientErrors: r.ClientErrors,
			Errors: r.ServerErrors, HasServerErrors: r.ServerErrors > 0, ErrorRate: percent(r.ServerErrors, r.Requests),
			P50: millis(r.P50), P99: millis(r.P99), Spark: sparkline(r.PerMinute), SparkW: sparkW, SparkH: sparkH})
	}
	return h.render(c, "traffic", fiber.Map{"Title": "Traffic", "On": true, "Since": s.Since, "Until": s.Until,
		"Total": s.Total, "TotalErrors": percent(s.Total.ServerErrors, s.Total.Requests),
		"TotalP50": millis(s.Total.P50), "TotalP99": millis(s.Total.P99),
		"Chart": chart(s), "Routes": rows})
}

// chart draws the totals, minute by minute, oldest on the left.
func chart(s web.TrafficSnapshot) trafficChart {
	t := s.Total
	maxReq := 1
	var maxP99 time.Duration
	for m := range t.PerMinute {
		maxReq = max(maxReq, t.PerMinute[m])
		maxP99 = max(maxP99, t.P99PerMinute[m])
	}
	plotW, plotH := float64(chartW-chartPad), float64(chartH-20)
	slot := plotW / float64(len(t.PerMinute))
	out := trafficChart{W: chartW, H: chartH, Pad: chartPad, MaxRequests: fmt.Sprint(maxReq), MaxMS: millis(maxP99)}
	var line []byte
	for m, n := range t.PerMinute {
		x := chartPad + float64(m)*slot
		at := s.Since.Add(time.Duration(m) * time.Minute).Format("15:04")
		hReq := plotH * float64(n) / float64(maxReq)
		out.Requests = append(out.Requests, bar{X: x + 2, Y: plotH - hReq, W: slot - 4, H: hReq,
			Title: fmt.Sprintf("%s UTC: %d requests, %d 5xx, p99 %s", at, n, t.ErrorsPerMinute[m], millis(t.P99PerMinute[m]))})
		if e := t.ErrorsPerMinute[m]; e > 0 {
			hErr := plotH * float64(e) / float64(maxReq)
			out.Errors = append(out.Errors, bar{X: x + 2, Y: plotH - hErr, W: slot - 4, H: hErr,
				Title: fmt.Sprintf("%s UTC: %d 5xx", at, e)})
		}
		if maxP99 > 0 {
			y := plotH - plotH*float64(t.P99PerMinute[m])/float64(maxP99)
			line = fmt.Appendf(line, "%.1f,%.1f ", x+slot/2, y)
		}
		if m%3 == 0 {
			out.Labels = append(out.Labels, axisLabel{X: x + 2, Text: at})
		}
	}
	out.P99 = string(line)
	return out
}

// sparkline is one route's requests per minute as small bars.
func sparkline(perMinute [web.TrafficMinutes]int) []bar {
	top := 1
	for _, n := range perMinute {
		top = max(top, n)
	}
	slot := float64(sparkW) / float64(len(perMinute))
	out := make([]bar, 0, len(perMinute))
	for m, n := range perMinute {
		hgt := math.Max(float64(sparkH)*float64(n)/float64(top), 0)
		out = append(out, bar{X: float64(m)*slot + 1, Y: sparkH - hgt, W: slot - 2, H: hgt, Title: fmt.Sprint(n)})
	}
	return out
}

func millis(d time.Duration) string {
	switch {
	case d == 0:
		return "—"
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func percent(n, of int) string {
	if of == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}
