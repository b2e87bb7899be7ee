package dev.ordo.faults;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fault proxy in front of a tiny echo server: bytes pass, a delay adds at least itself each way, a
 * stall holds bytes until it is lifted, a reset breaks open connections and a refusal new ones. Timings
 * are asserted from below only; waits are bounded polls.
 */
class FaultProxyTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);
  private static final int READ_TIMEOUT_MS = (int) PATIENCE.toMillis();

  private EchoServer echo;
  private FaultProxy proxy;
  private final List<Socket> clients = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    echo = new EchoServer();
    proxy = new FaultProxy("127.0.0.1", echo.port());
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket s : clients) {
      s.close();
    }
    proxy.close();
    echo.close();
  }

  @Test
  void bytesPassBothWaysInOrderAndAreCounted() throws Exception {
    Socket s = connect();
    assertEquals("hello", roundTrip(s, "hello"));

    byte[] big = new byte[1 << 20]; // many chunks, more than the proxy's queues hold: order and back-pressure
    new Random(7).nextBytes(big);
    CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
      try {
        s.getOutputStream().write(big);
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    });
    byte[] back = new byte[big.length];
    new DataInputStream(s.getInputStream()).readFully(back);
    sent.join();
    assertArrayEquals(big, back);

    assertEquals(1, proxy.connectionsAccepted());
    assertEquals(1, proxy.openConnections());
    long expected = 2L * (5 + big.length);
    await().atMost(PATIENCE).until(() -> proxy.bytesForwarded() == expected);
  }

  @Test
  void aDelayAddsAtLeastItselfEachWayOnAnOpenConnection() throws Exception {
    Socket s = connect();
    assertEquals("before", roundTrip(s, "before"));
    Duration delay = Duration.ofMillis(200);

    proxy.delay(delay);
    long start = System.nanoTime();
    assertEquals("delayed", roundTrip(s, "delayed"));
    long tookMs = (System.nanoTime() - start) / 1_000_000;

    assertTrue(tookMs >= 2 * delay.toMillis(), "there and back, each delayed: took " + tookMs + " ms");
    proxy.pass();
    assertEquals("after", roundTrip(s, "after"));
  }

  @Test
  void aStallHoldsBytesBothWaysUntilPass() throws Exception {
    Socket s = connect();
    assertEquals("before", roundTrip(s, "before"));
    await().atMost(PATIENCE).until(() -> proxy.bytesForwarded() == 12); // counted just after written
    long forwarded = proxy.bytesForwarded();

    proxy.stall();
    s.getOutputStream().write("held".getBytes(StandardCharsets.UTF_8));
    s.setSoTimeout(300);
    assertThrows(SocketTimeoutException.class, () -> s.getInputStream().read(), "nothing comes back while stalled");
    assertEquals(forwarded, proxy.bytesForwarded(), "nothing went on, either way");
    assertEquals(1, proxy.openConnections(), "the connection stays open");

    proxy.pass();
    s.setSoTimeout(READ_TIMEOUT_MS);
    assertEquals("held", readString(s, 4));
  }

  @Test
  void resetAllBreaksOpenConnectionsAndNewOnesStillWork() throws Exception {
    Socket s = connect();
    assertEquals("before", roundTrip(s, "before"));

    proxy.resetAll();

    assertBroken(s);
    await().atMost(PATIENCE).until(() -> proxy.openConnections() == 0);
    assertEquals("again", roundTrip(connect(), "again"));
  }

  @Test
  void whileRefusingNewConnectionsAreClosedAtOnceAndOpenOnesStay() throws Exception {
    Socket open = connect();
    assertEquals("before", roundTrip(open, "before"));

    proxy.refuse(true);
    assertBroken(connect());
    assertEquals(1, proxy.connectionsRefused());
    assertEquals("still", roundTrip(open, "still"));

    proxy.refuse(false);
    assertEquals("later", roundTrip(connect(), "later"));
    assertEquals(3, proxy.connectionsAccepted());
  }

  @Test
  void closeEndsEveryConnectionAndStopsListening() throws Exception {
    Socket s = connect();
    assertEquals("before", roundTrip(s, "before"));
    int port = proxy.port();

    proxy.close();

    assertBroken(s);
    long accepted = proxy.connectionsAccepted();
    try (Socket late = new Socket("127.0.0.1", port)) {
      // The port is free again, and another process on this machine may have taken it meanwhile.
    } catch (IOException e) {
      // refused: nothing listens there any more
    }
    assertEquals(accepted, proxy.connectionsAccepted(), "a closed proxy accepts nothing");
  }

  private Socket connect() throws IOException {
    Socket s = new Socket("127.0.0.1", proxy.port());
    s.setSoTimeout(READ_TIMEOUT_MS);
    clients.add(s);
    return s;
  }

  private static String roundTrip(Socket s, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    s.getOutputStream().write(bytes);
    return readString(s, bytes.length);
  }

  private static String readString(Socket s, int length) throws IOException {
    byte[] bytes = new byte[length];
    new DataInputStream(s.getInputStream()).readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** A read on the socket ends the stream or fails (a reset), within the read timeout. */
  private static void assertBroken(Socket s) {
    try {
      InputStream in = s.getInputStream();
      assertEquals(-1, in.read(), "the connection should have ended");
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the connection is still open", e);
    } catch (IOException e) {
      // a reset: broken, as wanted
    }
  }

  /** Echoes every byte back on each connection, a thread per connection. */
  private static final class EchoServer implements AutoCloseable {
    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();

    EchoServer() throws IOException {
      Thread acceptor = new Thread(this::acceptLoop, "echo-accept");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return server.getLocalPort();
    }

    private void acceptLoop() {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          accepted.add(s);
          Thread t = new Thread(() -> echo(s), "echo-" + s.getPort());
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return;
        }
      }
    }

    private static void echo(Socket s) {
      try (s) {
        s.getInputStream().transferTo(s.getOutputStream());
      } catch (IOException e) {
        // the proxy reset it
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : accepted) {
        s.close();
      }
    }
  }
}
