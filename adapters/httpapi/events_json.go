package httpapi

import (
	"strconv"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// The event list's reply, written by hand: encoding/json's reflection over
// twenty records was the largest share of a list outside the database
// (issue 36). The bytes are json.Marshal's, field for field:
// TestEventsJSONIsJSONMarshal and FuzzEventsJSONIsJSONMarshal compare them.
// Strings go through the live stream's appendJSONString (stream_codec.go).

var eventsJSONBufs = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// sendEventsJSON answers with es as c.JSON would (encodeJSON: a newline ends it).
func sendEventsJSON(c *fiber.Ctx, es []eventJSON) error {
	bp := eventsJSONBufs.Get().(*[]byte)
	b := append(appendEventsJSON((*bp)[:0], es), '\n')
	c.Response().Header.SetContentType(fiber.MIMEApplicationJSON)
	c.Response().SetBody(b) // copies
	*bp = b
	eventsJSONBufs.Put(bp)
	return nil
}

func appendEventsJSON(b []byte, es []eventJSON) []byte {
	b = append(b, '[')
	for i := range es {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEventJSON(b, &es[i])
	}
	return append(b, ']')
}

func appendEventJSON(b []byte, e *eventJSON) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, e.ID)
	b = append(b, `,"userId":`...)
	b = appendJSONString(b, e.UserID)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, e.Title)
	b = append(b, `,"description":`...)
	b = appendJSONString(b, e.Description)
	b = append(b, `,"startDate":`...)
	b = appendJSONString(b, e.StartDate)
	b = append(b, `,"endDate":`...)
	b = appendJSONString(b, e.EndDate)
	b = append(b, `,"startTime":`...)
	b = appendJSONString(b, e.StartTime)
	b = append(b, `,"endTime":`...)
	b = appendJSONString(b, e.EndTime)
	b = append(b, `,"location":`...)
	b = appendJSONString(b, e.Location)
	b = append(b, `,"eventType":`...)
	b = appendJSONString(b, e.EventType)
	b = append(b, `,"importanceLevel":`...)
	b = appendJSONString(b, e.ImportanceLevel)
	b = append(b, `,"notify":`...)
	b = appendJSONString(b, e.Notify)
	b = append(b, `,"participants":`...)
	if e.Participants == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range e.Participants {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, p)
		}
		b = append(b, ']')
	}
	b = append(b, `,"createdAt":`...)
	b = strconv.AppendInt(b, e.CreatedAt, 10)
	b = append(b, `,"updatedAt":`...)
	b = strconv.AppendInt(b, e.UpdatedAt, 10)
	return append(b, '}')
}
