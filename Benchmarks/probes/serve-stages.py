#!/usr/bin/env python3
"""Where a warm `hoard serve` request's CPU goes: splits a `perf record -g` profile of the server
into the stages of a request (parsing, signature, lookup, headers, write, ...) and, given the CPU
time per request, into microseconds.

    perf record -F 2000 -g -p $(pidof hoard) -o serve.perf -- sleep 8   # while wrk drives it
    perf script -i serve.perf > serve.script
    Benchmarks/probes/serve-stages.py serve.script 46      # 46 µs of CPU per request

Each sample goes to the stage of the frame nearest its leaf that names one (frames demangled with
`swift demangle`); the CPU per request is the server's user+system time over a run divided by the
requests wrk counted in it (/proc/PID/stat fields 14 and 15).
"""
import collections
import re
import subprocess
import sys

STAGES = [
    ("write (syscall, kernel)", ["writev", "sendmsg", "tcp_", "__dev_queue_xmit", "ip_finish_output"]),
    ("read (syscall, kernel, epoll)", ["__libc_read", "ksys_read", "epoll_wait", "recvmsg"]),
    ("disk read (index, segment, verify)", ["RecordReader", "SegmentStore", "DiskIndex", "sqlite3", "__libc_pread"]),
    ("signature", ["ImagePath.signature", "authenticate(", "URLSigner", "HMAC"]),
    ("lookup (variant, answer, Accept, original's record)",
     ["BoundedTable", "rememberedAnswer", "RecentVariants", "MemoryCache", "FormatNegotiation", "isCurrentInMemory",
      "memoryValue", "HTTPFreshness", "remember(_:of:", "cachedImage", "image(for:accept:)", "EntityTags"]),
    ("metrics, log", ["ImageServer.answered", "ServerMetrics", "report(inFlightChange", "Logger", "Histogram", "Counter"]),
    ("headers (fields, encoding)",
     ["HTTPResponseEncoder", "writeHead", "HTTPHeaders", "HTTPResponseHead.init", "ImageServer.response(with",
      "Response.init", "withoutBodyForHead", "currentDate", "ImageResponse", "HTTPFields", "HTTPField", "DateCache",
      "CachedAnswerHandler.write", "ResponseWriter.write"]),
    ("parsing (HTTP/1, Swift HTTP Types, router)",
     ["llhttp", "HTTPDecoder", "BetterHTTPParser", "HTTPRequest.init", "RouterResponder", "RouterTrie", "URI.init",
      "Request.init", "ImageServer.respond"]),
    ("tasks and async streams (Hummingbird, NIOAsyncChannel)",
     ["swift_task", "swift_job", "AsyncTask", "NIOAsyncWriter", "NIOAsyncChannel", "NIOThrowingAsyncSequenceProducer",
      "handleHTTP", "ApplicationProtocol.run", "withTaskCancellationHandler", "continuation", "StackAllocator",
      "addRoutes", "EventLoopGroupExecutor"]),
    ("connection watch", ["ConnectionWatch", "ByteWatch", "ConnectionTimeline"]),
    ("NIO pipeline and event loop",
     ["ChannelHandlerContext", "ByteToMessageHandler", "SelectableEventLoop", "Selector", "PendingWritesManager",
      "BaseSocketChannel", "BaseStreamSocketChannel", "CachedAnswerHandler", "HTTP1ToHTTPServerCodec"]),
]


def stacks(path):
    """Each sample's frames, leaf first, demangled."""
    found, current = [], []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            if current:
                found.append(current)
            current = []
        elif line[0] in " \t":
            parts = line.strip().split(" ", 1)
            if len(parts) == 2:
                current.append(re.sub(r"\+0x[0-9a-f]+$", "", parts[1].rsplit(" (", 1)[0]))
    if current:
        found.append(current)
    names = sorted({name for stack in found for name in stack})
    demangled = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                               capture_output=True, text=True).stdout.split("\n")
    table = dict(zip(names, demangled))
    return [[table.get(name, name) for name in stack] for stack in found]


def main():
    samples = stacks(sys.argv[1])
    per_request = float(sys.argv[2]) if len(sys.argv) > 2 else None
    counts = collections.Counter()
    for stack in samples:
        stage = next((name for frame in stack for name, keys in STAGES if any(k in frame for k in keys)), "other")
        counts[stage] += 1
    for name in [name for name, _ in STAGES] + ["other"]:
        share = counts[name] / len(samples)
        micro = f"{share * per_request:6.1f} µs  " if per_request else ""
        print(f"{100 * share:5.1f}%  {micro}{name}")


if __name__ == "__main__":
    main()
