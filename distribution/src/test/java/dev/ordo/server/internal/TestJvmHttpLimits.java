package dev.ordo.server.internal;

import java.time.Duration;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * The JVM-wide HTTP limits of the test JVM, set before any test starts a server (registered in
 * {@code META-INF/services}). The JDK reads the request timeout and the connection limit once per JVM,
 * when its first HTTP server starts ({@link HttpLimits}): without this, whichever test class happened
 * to start the first server set them for all the others, and {@code HttpFuzzTest}'s requests stalled on
 * purpose waited for the default 30 s instead of its 2 s. The request timeout is {@code HttpFuzzTest}'s
 * (only a request sent slowly on purpose takes more than a moment to arrive); the connection limit stays
 * the default.
 */
public final class TestJvmHttpLimits implements LauncherSessionListener {
  /** The test JVM's request timeout: the time a client may take to send one request. */
  public static final long REQUEST_TIMEOUT_MS = 2_000;

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    new HttpLimits(HttpLimits.DEFAULT_MAX_BODY_BYTES, HttpLimits.DEFAULT_MAX_HEADER_BYTES, HttpLimits.DEFAULT_MAX_HEADERS,
        HttpLimits.DEFAULT_MAX_CONNECTIONS, Duration.ofMillis(REQUEST_TIMEOUT_MS)).applyJvmWide();
  }
}
