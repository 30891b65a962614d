package eventsv1

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func TestEventFieldsMirrorTheSchema(t *testing.T) {
	fields := (&Event{}).ProtoReflect().Descriptor().Fields()
	want := []struct {
		name string
		kind protoreflect.Kind
	}{
		{"time_ms", protoreflect.Int64Kind},
		{"cpu", protoreflect.DoubleKind},
		{"requests", protoreflect.Int64Kind},
		{"host", protoreflect.StringKind},
	}
	require.Equal(t, len(want), fields.Len())
	for i, w := range want {
		f := fields.Get(i)
		assert.Equal(t, w.name, string(f.Name()))
		assert.Equal(t, w.kind, f.Kind(), w.name)
		assert.EqualValues(t, i+1, f.Number(), w.name)
	}
}

func TestEventBatchHasExactlyOneRepeatedField(t *testing.T) {
	fields := (&EventBatch{}).ProtoReflect().Descriptor().Fields()
	require.Equal(t, 1, fields.Len())
	f := fields.Get(0)
	assert.Equal(t, "events", string(f.Name()))
	assert.EqualValues(t, 1, f.Number())
	assert.True(t, f.IsList())
	assert.Equal(t, 0, (&SubscribeRequest{}).ProtoReflect().Descriptor().Fields().Len())
	assert.Equal(t, "/pond.experiment.v1.Producer/Subscribe", Producer_Subscribe_FullMethodName)
}

type event struct {
	timeMs, requests int64
	cpu              float64
	host             string
}

func decodeAll(t *testing.T, data []byte) []event {
	t.Helper()
	var out []event
	require.NoError(t, DecodeEvents(data, func(ts int64, cpu float64, req int64, host []byte) {
		out = append(out, event{ts, req, cpu, string(host)})
	}))
	return out
}

func TestDecodeEventsReadsWhatProtoMarshalWrites(t *testing.T) {
	b := &EventBatch{Events: []*Event{
		{TimeMs: 1714000000000, Cpu: 0.5, Requests: 12, Host: "api-1"},
		{}, // every field at its default: nothing on the wire
		{TimeMs: -1, Cpu: math.Copysign(0, -1), Requests: 199, Host: "api-1000"},
	}}
	data, err := proto.Marshal(b)
	require.NoError(t, err)
	got := decodeAll(t, data)
	require.Len(t, got, 3)
	assert.Equal(t, event{1714000000000, 12, 0.5, "api-1"}, got[0])
	assert.Equal(t, event{}, got[1])
	assert.Equal(t, event{-1, 199, 0, "api-1000"}, got[2])
	assert.True(t, math.Signbit(got[2].cpu))
}

func TestDecodeEventsSkipsUnknownFieldsAndKeepsTheLastDuplicate(t *testing.T) {
	var ev []byte
	ev = protowire.AppendTag(ev, 1, protowire.VarintType)
	ev = protowire.AppendVarint(ev, 5)
	ev = protowire.AppendTag(ev, 9, protowire.BytesType) // unknown
	ev = protowire.AppendBytes(ev, []byte("x"))
	ev = protowire.AppendTag(ev, 1, protowire.VarintType)
	ev = protowire.AppendVarint(ev, 7)
	var batch []byte
	batch = protowire.AppendTag(batch, 2, protowire.VarintType) // unknown batch field
	batch = protowire.AppendVarint(batch, 1)
	batch = protowire.AppendTag(batch, 1, protowire.BytesType)
	batch = protowire.AppendBytes(batch, ev)
	assert.Equal(t, []event{{timeMs: 7}}, decodeAll(t, batch))
}

func TestDecodeEventsRejectsTruncatedInput(t *testing.T) {
	data, err := proto.Marshal(&EventBatch{Events: []*Event{{TimeMs: 1, Host: "api-1"}}})
	require.NoError(t, err)
	err = DecodeEvents(data[:len(data)-2], func(int64, float64, int64, []byte) {})
	assert.ErrorIs(t, err, ErrMalformed)
}

func TestCodecPassesRawBytesThroughAndDelegatesTheRest(t *testing.T) {
	raw := &Raw{Data: []byte{1, 2, 3}}
	out, err := Codec.Marshal(raw)
	require.NoError(t, err)
	assert.Equal(t, []byte{1, 2, 3}, out.Materialize())

	msg := &Event{TimeMs: 3, Host: "h"}
	enc, err := Codec.Marshal(msg)
	require.NoError(t, err)
	var back Raw
	require.NoError(t, Codec.Unmarshal(mem.BufferSlice{mem.SliceBuffer(enc.Materialize())}, &back))
	var ev Event
	require.NoError(t, Codec.Unmarshal(mem.BufferSlice{mem.SliceBuffer(back.Data)}, &ev))
	assert.True(t, proto.Equal(msg, &ev))
	assert.Equal(t, "proto", Codec.Name())
}

// givenBack is a mem.BufferPool that counts the buffers given back.
type givenBack int

func (g *givenBack) Get(n int) *[]byte { b := make([]byte, n); return &b }
func (g *givenBack) Put(*[]byte)       { *g++ }

// TestMarshalOfAPooledRawTakesAReference: gRPC frees what Marshal returns
// once the bytes are written, so Marshal takes a reference of its own and
// the sender may let go of its reference as soon as the send returns.
func TestMarshalOfAPooledRawTakesAReference(t *testing.T) {
	var pool givenBack
	data := pool.Get(4096) // pooled buffers start at 1 KB
	(*data)[0] = 7
	buf := mem.NewBuffer(data, &pool)
	out, err := Codec.Marshal(&Raw{Buf: buf})
	require.NoError(t, err)
	buf.Free() // the sender's reference
	assert.Zero(t, pool, "gRPC's reference keeps the bytes")
	assert.Equal(t, byte(7), out.Materialize()[0])
	assert.Equal(t, 4096, out.Len())
	out.Free()
	assert.EqualValues(t, 1, pool, "back once gRPC let go too")
}

// TestGeneratedCodeIsUpToDate regenerates the Go code from the proto with
// protoc and the plugins on PATH and compares it with the committed files.
func TestGeneratedCodeIsUpToDate(t *testing.T) {
	for _, tool := range []string{"protoc", "protoc-gen-go", "protoc-gen-go-grpc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH (apt-get install protobuf-compiler; go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12 google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2)", tool)
		}
	}
	dir := t.TempDir()
	cmd := exec.Command("protoc", "-I", "../../proto", "--go_out="+dir, "--go_opt=paths=source_relative",
		"--go-grpc_out="+dir, "--go-grpc_opt=paths=source_relative", "events.proto")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, name := range []string{"events.pb.go", "events_grpc.pb.go"} {
		want, err := os.ReadFile(name)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, got), "%s differs from what go generate writes: run go generate ./examples/aggregator/...", name)
	}
}

func TestAppendEventsWritesWhatProtoMarshalWrites(t *testing.T) {
	events := []*Event{
		{TimeMs: 1714000000000, Cpu: 0.5, Requests: 12, Host: "api-1"},
		{}, // every field at its default: an empty event
		{TimeMs: -1, Cpu: math.Copysign(0, -1), Requests: -199, Host: "ünïcode"},
		{Cpu: math.NaN(), Host: string(make([]byte, 200))}, // a two-byte length
		{TimeMs: math.MaxInt64, Cpu: math.Inf(-1), Requests: math.MinInt64},
	}
	for i := range 200 {
		events = append(events, &Event{TimeMs: int64(i) << (i % 60), Cpu: float64(i) / 7, Requests: int64(i % 3), Host: "h"})
	}
	want, err := proto.Marshal(&EventBatch{Events: events})
	require.NoError(t, err)
	got, err := AppendEvents([]byte("prefix"), events)
	require.NoError(t, err)
	assert.Equal(t, append([]byte("prefix"), want...), got)

	_, err = AppendEvents(nil, []*Event{{Host: "\xff"}})
	assert.Error(t, err, "a host that is not UTF-8")
	_, perr := proto.Marshal(&EventBatch{Events: []*Event{{Host: "\xff"}}})
	assert.Error(t, perr, "proto.Marshal refuses it too")
}

func BenchmarkEncodeTick(b *testing.B) {
	events := make([]*Event, 1000)
	for i := range events {
		events[i] = &Event{TimeMs: 1714000000000, Cpu: float64(i) / 1000, Requests: int64(i % 200), Host: "host-" + string(rune('a'+i%26))}
	}
	b.Run("enc=proto.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := proto.Marshal(&EventBatch{Events: events}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("enc=AppendEvents", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			var err error
			if buf, err = AppendEvents(buf[:0], events); err != nil {
				b.Fatal(err)
			}
		}
	})
}
