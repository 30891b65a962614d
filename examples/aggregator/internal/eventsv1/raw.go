package eventsv1

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the proto codec Codec delegates to
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
)

// Raw is a message in its encoded form. The producer encodes each
// EventBatch once and sends the same bytes to every subscriber; the
// aggregator receives the bytes and decodes them straight into columns
// with [DecodeEvents], without building an Event per row.
//
// The bytes are Data, or Buf when they are a reference-counted buffer (the
// producer's, recycled once every subscriber has sent or dropped them):
// sending takes a reference to Buf for gRPC, which releases it once the
// bytes are written, so the sender may release its own as soon as the
// send returns. Receiving fills Data.
type Raw struct {
	Data []byte
	Buf  mem.Buffer
}

// Codec is gRPC's proto codec, except that a [*Raw] passes through as its
// bytes. It keeps the name "proto", so the wire is plain gRPC+protobuf and
// either end can talk to any other implementation.
var Codec encoding.CodecV2 = rawCodec{}

type rawCodec struct{}

func protoCodec() encoding.CodecV2 { return encoding.GetCodecV2("proto") }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	if r, ok := v.(*Raw); ok {
		if r.Buf != nil {
			// gRPC frees what Marshal returns once it is done with it.
			r.Buf.Ref()
			return mem.BufferSlice{r.Buf}, nil
		}
		return mem.BufferSlice{mem.SliceBuffer(r.Data)}, nil
	}
	return protoCodec().Marshal(v)
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if r, ok := v.(*Raw); ok {
		r.Data = r.Data[:0]
		for _, b := range data {
			r.Data = append(r.Data, b.ReadOnlyData()...)
		}
		return nil
	}
	return protoCodec().Unmarshal(data, v)
}

func (rawCodec) Name() string { return "proto" }

// AppendEvents appends the encoding of an EventBatch of events to dst:
// the bytes proto.Marshal writes for it (fields in number order, fields at
// their zero value left out), without its reflection, about a fifth of
// its time. It fails, as proto.Marshal does, on a host that is not UTF-8.
func AppendEvents(dst []byte, events []*Event) ([]byte, error) {
	for _, e := range events {
		if !utf8.ValidString(e.Host) {
			return dst, fmt.Errorf("eventsv1: host %q is not UTF-8", e.Host)
		}
		dst = protowire.AppendTag(dst, 1, protowire.BytesType)
		dst = protowire.AppendVarint(dst, uint64(eventSize(e)))
		if e.TimeMs != 0 {
			dst = protowire.AppendTag(dst, 1, protowire.VarintType)
			dst = protowire.AppendVarint(dst, uint64(e.TimeMs))
		}
		if math.Float64bits(e.Cpu) != 0 {
			dst = protowire.AppendTag(dst, 2, protowire.Fixed64Type)
			dst = protowire.AppendFixed64(dst, math.Float64bits(e.Cpu))
		}
		if e.Requests != 0 {
			dst = protowire.AppendTag(dst, 3, protowire.VarintType)
			dst = protowire.AppendVarint(dst, uint64(e.Requests))
		}
		if e.Host != "" {
			dst = protowire.AppendTag(dst, 4, protowire.BytesType)
			dst = protowire.AppendString(dst, e.Host)
		}
	}
	return dst, nil
}

// eventSize is the length of e's encoding (one byte per tag).
func eventSize(e *Event) int {
	n := 0
	if e.TimeMs != 0 {
		n += 1 + protowire.SizeVarint(uint64(e.TimeMs))
	}
	if math.Float64bits(e.Cpu) != 0 {
		n += 1 + 8
	}
	if e.Requests != 0 {
		n += 1 + protowire.SizeVarint(uint64(e.Requests))
	}
	if e.Host != "" {
		n += 1 + protowire.SizeBytes(len(e.Host))
	}
	return n
}

// ErrMalformed reports bytes that are not an encoded EventBatch.
var ErrMalformed = errors.New("eventsv1: malformed EventBatch")

// DecodeEvents decodes an encoded EventBatch and calls each for every
// event, in order. host aliases data: copy it (or look it up) to keep it.
// Unknown fields are skipped; a field seen twice keeps its last value, as
// protobuf says.
func DecodeEvents(data []byte, each func(timeMs int64, cpu float64, requests int64, host []byte)) error {
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(n))
		}
		data = data[n:]
		if num != 1 || typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, data)
			if n < 0 {
				return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(n))
			}
			data = data[n:]
			continue
		}
		ev, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(n))
		}
		data = data[n:]
		if err := decodeEvent(ev, each); err != nil {
			return err
		}
	}
	return nil
}

func decodeEvent(b []byte, each func(int64, float64, int64, []byte)) error {
	var (
		timeMs, requests int64
		cpu              float64
		host             []byte
	)
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(n))
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, m := protowire.ConsumeVarint(b)
			n, timeMs = m, int64(v)
		case num == 2 && typ == protowire.Fixed64Type:
			v, m := protowire.ConsumeFixed64(b)
			n, cpu = m, math.Float64frombits(v)
		case num == 3 && typ == protowire.VarintType:
			v, m := protowire.ConsumeVarint(b)
			n, requests = m, int64(v)
		case num == 4 && typ == protowire.BytesType:
			host, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(n))
		}
		b = b[n:]
	}
	each(timeMs, cpu, requests, host)
	return nil
}
