package dev.ordo.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy that puts network faults between a client and a server, for tests and fault runs. It
 * listens on 127.0.0.1 on a free port ({@link #port}) and forwards each connection it accepts to the
 * target, both ways, with plain blocking sockets. The faults are switched at any time, from any thread,
 * and act on the open connections too:
 * <ul>
 *   <li>{@link #pass}: bytes go through as they come;</li>
 *   <li>{@link #delay}: each chunk of bytes goes on that long after the proxy read it, in order, both
 *       ways (latency, not a lower rate: chunks read meanwhile wait alongside);</li>
 *   <li>{@link #stall}: no byte goes on, either way, until {@link #pass} or {@link #delay}; the
 *       connections stay open (a partition that TCP does not notice);</li>
 *   <li>{@link #resetAll}: every open connection is closed abruptly (a reset, as when a peer dies);</li>
 *   <li>{@link #refuse}: new connections are closed at once (a server that is down).</li>
 * </ul>
 *
 * <p>Each direction of a connection has a reader thread, which reads chunks into a short queue, and a
 * writer thread, which writes them out when the fault allows. The queue is bounded, so a stalled or
 * slow direction holds its sender back as a slow network would, instead of buffering without end.
 */
public final class FaultProxy implements AutoCloseable {
  private static final int CHUNK_BYTES = 16 * 1024;
  private static final int QUEUED_CHUNKS = 64;
  private static final int CONNECT_TIMEOUT_MS = 10_000;

  /** How bytes go on now: held while stalled, else each chunk {@code delayNanos} after it was read. */
  private record Mode(boolean stalled, long delayNanos) {}

  /** Bytes read from one side, and when; {@code bytes == null} marks the end of the stream. */
  private record Chunk(byte[] bytes, long readAt) {}

  private final String targetHost;
  private final int targetPort;
  private final ServerSocket server;
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong bytesForwarded = new AtomicLong();
  /** Writers wait on it for their turn; notified when the mode changes. */
  private final Object gate = new Object();
  private volatile Mode mode = new Mode(false, 0);
  private volatile boolean refusing;
  private volatile boolean closed;

  /** Starts a proxy to {@code targetHost:targetPort}, passing bytes through. */
  public FaultProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    thread("accept", this::acceptLoop).start();
  }

  /** The port the proxy listens on, at 127.0.0.1. */
  public int port() {
    return server.getLocalPort();
  }

  /** "127.0.0.1:port", for a client's bootstrap or URL. */
  public String address() {
    return server.getInetAddress().getHostAddress() + ":" + port();
  }

  /** Bytes go through as they come again; what a stall or a delay held goes on at once, in order. */
  public void pass() {
    setMode(new Mode(false, 0));
  }

  /** Each chunk goes on {@code delay} after the proxy read it, both ways, in order. */
  public void delay(Duration delay) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("a delay must not be negative: " + delay);
    }
    setMode(new Mode(false, delay.toNanos()));
  }

  /** No byte goes on, either way, until {@link #pass} or {@link #delay}; connections stay open. */
  public void stall() {
    setMode(new Mode(true, 0));
  }

  /** Closes every open connection abruptly, both its sides: each peer sees a reset. */
  public void resetAll() {
    for (Connection c : List.copyOf(connections)) {
      c.reset();
    }
  }

  /** While on, connections are closed abruptly as soon as they are accepted. Open ones stay. */
  public void refuse(boolean on) {
    refusing = on;
  }

  /** Connections accepted so far, those refused included. */
  public long connectionsAccepted() {
    return accepted.get();
  }

  /** Connections closed at once because the proxy was refusing. */
  public long connectionsRefused() {
    return refused.get();
  }

  /** Connections open now. */
  public int openConnections() {
    return connections.size();
  }

  /** Bytes written on, both ways, over every connection so far. */
  public long bytesForwarded() {
    return bytesForwarded.get();
  }

  /** Stops listening and resets every open connection. */
  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    resetAll();
  }

  private void setMode(Mode next) {
    synchronized (gate) {
      mode = next;
      gate.notifyAll();
    }
  }

  /** Waits until a chunk read at {@code readAt} may go on: not stalled, and its delay over. */
  private void awaitTurn(long readAt) throws InterruptedException {
    synchronized (gate) {
      while (true) {
        Mode m = mode;
        if (m.stalled()) {
          gate.wait();
          continue;
        }
        long left = readAt + m.delayNanos() - System.nanoTime();
        if (left <= 0) {
          return;
        }
        TimeUnit.NANOSECONDS.timedWait(gate, left);
      }
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        if (closed) {
          return;
        }
        continue;
      }
      long id = accepted.incrementAndGet();
      if (refusing) {
        refused.incrementAndGet();
        abort(client);
        continue;
      }
      Connection c = new Connection(client, id);
      connections.add(c);
      if (closed) {
        c.reset();
        return;
      }
      thread("open-" + c.id, c::open).start();
    }
  }

  private Thread thread(String name, Runnable body) {
    Thread t = new Thread(body, "fault-proxy-" + server.getLocalPort() + "-" + name);
    t.setDaemon(true);
    return t;
  }

  /** Closes a socket so that its peer sees a reset rather than an orderly end. */
  private static void abort(Socket s) {
    try {
      s.setSoLinger(true, 0);
    } catch (IOException e) {
      // not connected or closed already: close anyway
    }
    closeQuietly(s);
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // nothing left to do
    }
  }

  /** One proxied connection: the accepted socket, the one to the target, and the four pump threads. */
  private final class Connection {
    final Socket client;
    final long id;
    private final List<Thread> threads = new ArrayList<>();
    private Socket upstream;
    private int endedDirections;
    private boolean ended;

    Connection(Socket client, long id) {
      this.client = client;
      this.id = id;
    }

    /** Connects to the target and starts forwarding; resets the client when the target cannot be reached. */
    void open() {
      Socket s = new Socket();
      try {
        s.connect(new InetSocketAddress(targetHost, targetPort), CONNECT_TIMEOUT_MS);
        s.setTcpNoDelay(true);
        client.setTcpNoDelay(true);
      } catch (IOException e) {
        abort(s);
        reset();
        return;
      }
      synchronized (this) {
        if (ended) {
          abort(s);
          return;
        }
        upstream = s;
        pump(client, s, "up");
        pump(s, client, "down");
        threads.forEach(Thread::start);
      }
    }

    /** Adds the reader and writer of one direction; a queue between them holds what is read. */
    private void pump(Socket from, Socket to, String direction) {
      BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(QUEUED_CHUNKS);
      threads.add(thread(id + "-" + direction + "-read", () -> read(from, queue)));
      threads.add(thread(id + "-" + direction + "-write", () -> write(queue, to)));
    }

    private void read(Socket from, BlockingQueue<Chunk> queue) {
      byte[] buffer = new byte[CHUNK_BYTES];
      try {
        InputStream in = from.getInputStream();
        while (true) {
          int n = in.read(buffer);
          if (n < 0) {
            queue.put(new Chunk(null, System.nanoTime()));
            return;
          }
          queue.put(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime()));
        }
      } catch (IOException e) {
        reset(); // the peer reset or the connection was closed: the other side learns it the same way
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void write(BlockingQueue<Chunk> queue, Socket to) {
      try {
        OutputStream out = to.getOutputStream();
        while (true) {
          Chunk chunk = queue.take();
          awaitTurn(chunk.readAt());
          if (chunk.bytes() == null) {
            to.shutdownOutput(); // an orderly end goes on as one, after the bytes before it
            directionEnded();
            return;
          }
          out.write(chunk.bytes());
          out.flush();
          bytesForwarded.addAndGet(chunk.bytes().length);
        }
      } catch (IOException e) {
        reset();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Both directions ended in order: the connection closes normally. */
    private synchronized void directionEnded() {
      if (++endedDirections == 2 && !ended) {
        ended = true;
        closeQuietly(client);
        closeQuietly(upstream);
        connections.remove(this);
      }
    }

    /** Closes both sides abruptly and stops the pumps. */
    synchronized void reset() {
      if (ended) {
        return;
      }
      ended = true;
      abort(client);
      if (upstream != null) {
        abort(upstream);
      }
      threads.forEach(Thread::interrupt);
      connections.remove(this);
    }
  }
}
