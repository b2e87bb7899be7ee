package dev.ordo.server.internal;

import dev.ordo.server.StartupException;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Free-port picking and port checks on the loopback interface. */
public final class Ports {
  private Ports() {}

  /** A port that was free a moment ago (the OS's pick for port 0). */
  public static int freeLoopbackPort() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new StartupException("cannot find a free port on the loopback interface: " + e.getMessage());
    }
  }

  /** Returns {@code port}, or a free one if it is 0; fails with a one-line message if it is taken. */
  public static int checkFree(String what, String flag, int port) {
    if (port == 0) {
      return freeLoopbackPort();
    }
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return port;
    } catch (BindException e) {
      throw portInUse(what, flag, port);
    } catch (IOException e) {
      throw new StartupException("cannot use " + what + " " + port + ": " + e.getMessage());
    }
  }

  public static StartupException portInUse(String what, String flag, int port) {
    return new StartupException(what + " " + port + " is already in use; choose another with "
        + flag + " (0 = any free port)");
  }
}
