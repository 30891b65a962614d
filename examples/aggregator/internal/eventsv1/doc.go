// Package eventsv1 holds the Go code generated from proto/events.proto: the
// Producer service and its EventBatch, Event and SubscribeRequest messages.
// Regenerate with go generate (protoc from Debian's protobuf-compiler, and
// protoc-gen-go v1.36.12 and protoc-gen-go-grpc v1.6.2 from go install);
// the generated files are committed, so building needs neither.
package eventsv1

//go:generate protoc -I ../../proto --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative events.proto
