// bench-accept.mjs measures the pinned TypeScript acceptedFormInput of
// @maxhealth.tech/prefab on the answer mcpform's Go benchmarks check: the
// 8-field signup form of testdata/forms/signup.json, every field answered.
// It prints one line in the Go benchmark format,
//
//	BenchmarkTSAcceptedFormInput-2  N  X ns/op
//
// so that benchstat reads it beside the Go results. Run it interleaved
// with the Go benchmarks, in the same loop, so that both see the same load;
// on a shared machine many short runs give steadier medians than a few
// long ones:
//
//	go test -c -o /tmp/perf.test .
//	for i in $(seq 40); do
//	  /tmp/perf.test -test.run '^$' -test.benchtime 0.05s -test.benchmem \
//	    -test.bench 'BenchmarkFormRead$|BenchmarkReferenceValidator$|BenchmarkFormInputRequest2$|BenchmarkMarshalInputRequest$|BenchmarkCheckScaling$'
//	  node interop/bench-accept.mjs 0.1
//	done > bench.txt
//	benchstat -filter '.name:/FormRead|ReferenceValidator|TSAccepted/' bench.txt
//
// The argument is the measuring time in seconds, 1 by default; like
// go test's -benchtime it excludes the warm-up.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { acceptedFormInput } from '@maxhealth.tech/prefab/mcp';

const seconds = Number(process.argv[2] ?? '1');
const fields = JSON.parse(readFileSync(new URL('../testdata/forms/signup.json', import.meta.url), 'utf8'));
// The answer of accept_test.go's benchAnswer, as a client would send it.
const responses = {
  signup: {
    action: 'accept',
    content: {
      email: 'ada@example.com', full_name: 'Ada Lovelace', plan: 'team', seats: 5,
      website: 'https://example.com/ada', start: '2026-07-28', interests: ['ai', 'infra'], newsletter: true,
    },
  },
};

function run(n) {
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const a = acceptedFormInput(responses, 'signup', fields);
    if (a === undefined) throw new Error('the benchmark answer was not accepted');
    kept += Object.keys(a).length;
  }
  return kept; // used, so the calls cannot be optimized away
}

// Warm up until the JIT has settled, then grow n as go test does, until a
// run lasts the measuring time.
const warmEnd = performance.now() + 500;
while (performance.now() < warmEnd) run(1000);
let n = 1;
let ns = 0;
for (;;) {
  const start = process.hrtime.bigint();
  run(n);
  ns = Number(process.hrtime.bigint() - start);
  if (ns >= seconds * 1e9 || n >= 1e9) break;
  const next = ns > 0 ? Math.ceil(n * 1.2 * seconds * 1e9 / ns) : n * 100;
  n = Math.min(Math.max(next, n + 1), n * 100);
}
// The -2 suffix is GOMAXPROCS in Go's lines; node runs on one thread, but
// the suffix must match for benchstat to line the rows up by machine.
const procs = os.availableParallelism();
console.log(`BenchmarkTSAcceptedFormInput-${procs}\t${n}\t${(ns / n).toFixed(1)} ns/op`);
