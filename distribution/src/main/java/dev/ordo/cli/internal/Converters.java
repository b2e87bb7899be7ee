package dev.ordo.cli.internal;

import dev.ordo.api.ClusterTopics;
import dev.ordo.api.Durations;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** picocli converters whose errors read as one line naming the bad value. */
public final class Converters {
  private Converters() {}

  /** {@code 30s,1m,5m,30m}: strictly increasing positive durations. */
  public static final class DelayTiers implements ITypeConverter<List<Duration>> {
    @Override
    public List<Duration> convert(String value) {
      try {
        return Durations.parseList(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** A cluster name, checked as a topic prefix. */
  public static final class Cluster implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      try {
        return new ClusterTopics(value).cluster();
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** A TCP port, 0 to 65535 (0 = any free port). */
  public static final class Port implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      int port;
      try {
        port = Integer.parseInt(value.trim());
      } catch (NumberFormatException e) {
        throw new TypeConversionException("'" + value + "' is not a port number (0-65535, 0 = any free port)");
      }
      if (port < 0 || port > 65535) {
        throw new TypeConversionException(port + " is not a port number (0-65535, 0 = any free port)");
      }
      return port;
    }
  }

  /** A count of at least 1. */
  public static final class Positive implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      int n;
      try {
        n = Integer.parseInt(value.trim());
      } catch (NumberFormatException e) {
        throw new TypeConversionException("'" + value + "' is not a whole number");
      }
      if (n < 1) {
        throw new TypeConversionException("must be at least 1, got " + n);
      }
      return n;
    }
  }

  /** {@code host:port[,host:port...]}. */
  public static final class BootstrapServers implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      String v = value.trim();
      if (v.isEmpty()) {
        throw new TypeConversionException("is empty (want host:port[,host:port...])");
      }
      for (String server : v.split(",")) {
        String s = server.trim();
        int colon = s.lastIndexOf(':');
        boolean ok = colon > 0 && colon < s.length() - 1;
        if (ok) {
          try {
            int port = Integer.parseInt(s.substring(colon + 1));
            ok = port > 0 && port <= 65535;
          } catch (NumberFormatException e) {
            ok = false;
          }
        }
        if (!ok) {
          throw new TypeConversionException("'" + s + "' is not host:port");
        }
      }
      return v;
    }
  }

  /** A duration as users write it: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d}. */
  public static final class DurationValue implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return Durations.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** The base URL of an Ordo server: {@code http://host:port} (or https). */
  public static final class ServerUrl implements ITypeConverter<java.net.URI> {
    @Override
    public java.net.URI convert(String value) {
      java.net.URI uri;
      try {
        uri = new java.net.URI(value.trim());
      } catch (java.net.URISyntaxException e) {
        throw new TypeConversionException("'" + value + "' is not a URL (want e.g. http://127.0.0.1:7070)");
      }
      String scheme = uri.getScheme();
      if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        throw new TypeConversionException("'" + value + "' is not an http:// URL (want e.g. http://127.0.0.1:7070)");
      }
      return uri;
    }
  }

  /** An item ID, {@code <partition>-<offset>}. */
  public static final class ItemIdValue implements ITypeConverter<dev.ordo.api.ItemId> {
    @Override
    public dev.ordo.api.ItemId convert(String value) {
      try {
        return dev.ordo.api.ItemId.parse(value.trim());
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
