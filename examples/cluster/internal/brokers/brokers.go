// Package brokers gives the cluster its Kafka: an embedded in-process
// cluster (franz-go's kfake, which speaks the real wire protocol with
// consumer groups, transactions, read-committed fetches and offsets by
// timestamp) on a loopback port, or a real one named by its seed brokers,
// and the topics the program needs, created with kadm.
package brokers

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Topic names and the input's default partition count.
const (
	Input             = "metrics"
	Output            = "metrics-agg"
	DefaultPartitions = 12
	// Group is the workers' consumer group.
	Group = "pond-cluster-workers"
)

// Embedded is an in-process Kafka cluster listening on 127.0.0.1.
type Embedded struct {
	c *kfake.Cluster
}

// StartEmbedded starts a one-broker kfake cluster on a free loopback port.
// Its group session timeouts may be as short as 200 ms, so tests can see
// a member die quickly.
func StartEmbedded() (*Embedded, error) {
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.GroupMinSessionTimeout(200*time.Millisecond),
		// The retention Retain sets is applied once a minute.
		kfake.BrokerConfigs(map[string]string{"log.cleaner.backoff.ms": strconv.FormatInt(cleanEvery.Milliseconds(), 10)}),
	)
	if err != nil {
		return nil, fmt.Errorf("brokers: start the embedded cluster: %w", err)
	}
	return &Embedded{c: c}, nil
}

// cleanEvery is how often the embedded cluster applies retention.
const cleanEvery = time.Minute

// segmentBytes is the size of the embedded topics' log segments when
// Retain is set: a segment's memory goes once all of it has expired, and
// kfake's default is 100 MB a partition.
const segmentBytes = 1 << 20

// Retain has the embedded cluster drop the records of both topics whose
// timestamp is more than keep before its clock, once a minute (call it
// after CreateTopics). kfake holds a topic's whole log in memory and,
// without a retention set on the topic, keeps it for ever: a process left
// running grew by every record produced and every row written.
func (e *Embedded) Retain(ctx context.Context, keep time.Duration) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.Addrs()...))
	if err != nil {
		return err
	}
	defer cl.Close()
	ms, seg := strconv.FormatInt(keep.Milliseconds(), 10), strconv.Itoa(segmentBytes)
	resps, err := kadm.NewClient(cl).AlterTopicConfigs(ctx, []kadm.AlterConfig{
		{Op: kadm.SetConfig, Name: "retention.ms", Value: &ms},
		{Op: kadm.SetConfig, Name: "segment.bytes", Value: &seg},
	}, Input, Output)
	if err == nil {
		for _, r := range resps {
			if r.Err != nil {
				err = r.Err
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("brokers: set the embedded topics' retention: %w", err)
	}
	return nil
}

// Addrs returns the seed broker addresses.
func (e *Embedded) Addrs() []string { return e.c.ListenAddrs() }

// Close stops the cluster.
func (e *Embedded) Close() { e.c.Close() }

// CreateTopics creates the input topic with the given partitions and the
// output topic with as many, unless they exist. A topic that exists with
// another partition count is an error: the hosts' placement depends on it.
func CreateTopics(ctx context.Context, seeds []string, partitions int32) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for _, t := range []string{Input, Output} {
		resp, err := adm.CreateTopic(ctx, partitions, 1, nil, t)
		if err == nil {
			err = resp.Err
		}
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("brokers: create topic %q: %w", t, err)
		}
	}
	td, err := adm.ListTopics(ctx, Input)
	if err != nil {
		return fmt.Errorf("brokers: describe %q: %w", Input, err)
	}
	if n := len(td[Input].Partitions); n != int(partitions) {
		return fmt.Errorf("brokers: topic %q has %d partitions, want %d", Input, n, partitions)
	}
	return nil
}
