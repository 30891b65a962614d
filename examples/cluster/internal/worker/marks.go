package worker

// replayMarks is where a replay of a partition must start, kept while its
// records are processed. A replay must start at or before the first
// offset from which the latest event taken is at least the replay's start
// time (the checkpoint's latest event minus the longest window): records
// before that offset hold no event the windows still need, and none
// decides whether a later one is taken. The marks follow the running
// maximum of the records' timestamps (those the series could take, 1970
// to 2116), which is never below the latest event taken (a record left
// out for another reason may raise it), so the offset where it reaches
// the start time is at or before that one. The running maximum never
// decreases with the offset, whatever timestamps the records carry (a
// producer re-sending old data, a host whose clock is minutes behind),
// where a search of the records by timestamp assumes they increase and
// skips events the windows need when they do not.
type replayMarks struct {
	marks []replayMark // by offset; latest increasing
	head  int
	max   int64 // the running maximum
	any   bool  // whether max is set
}

// replayMark says that the running maximum reached latest (ms) at the
// record at offset first.
type replayMark struct {
	first  int64
	latest int64
}

// markEvery is the event time between two marks: a replay reads at most
// about this much more than it needs (a five-hundredth of the window).
var markEvery = LongestWindow.Milliseconds() / 512

// maxMarks bounds the marks kept (a window's worth, about 512, when every
// poll is committed): past it every other one goes, a looser bound, never
// a wrong one.
const maxMarks = 2048

// see takes the record at offset whose timestamp is ms.
func (m *replayMarks) see(offset, ms int64) {
	if ms < 0 || ms > maxTimeMs || m.any && ms <= m.max {
		return
	}
	m.max, m.any = ms, true
	if n := len(m.marks); n > m.head && ms < m.marks[n-1].latest+markEvery {
		return
	}
	if len(m.marks)-m.head >= maxMarks {
		live := m.marks[m.head:]
		k := 0
		for i := 0; i < len(live); i += 2 {
			live[k] = live[i]
			k++
		}
		m.marks, m.head = live[:k], 0
	}
	m.marks = append(m.marks, replayMark{first: offset, latest: ms})
}

// start returns the offset a replay from event time fromMs starts at: the
// last mark whose latest is before fromMs (the running maximum reaches
// fromMs after it), or the first mark (no record before it could be
// taken), and false without marks. The marks before the one returned go:
// fromMs only grows.
func (m *replayMarks) start(fromMs int64) (int64, bool) {
	for m.head+1 < len(m.marks) && m.marks[m.head+1].latest < fromMs {
		m.head++
	}
	if m.head > len(m.marks)/2 && m.head > 64 {
		m.marks = append(m.marks[:0], m.marks[m.head:]...)
		m.head = 0
	}
	if m.head >= len(m.marks) {
		return 0, false
	}
	return m.marks[m.head].first, true
}
