package dev.ordo.server.internal;

import dev.ordo.server.StartupException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The server's state directory, created if missing, checked to be a writable directory, and locked
 * ({@code ordo.lock}) so that two servers never share it.
 */
public final class StateDir implements AutoCloseable {
  static final String LOCK_FILE = "ordo.lock";

  private final Path path;
  private final FileChannel lockChannel;
  private final FileLock lock;

  private StateDir(Path path, FileChannel lockChannel, FileLock lock) {
    this.path = path;
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /** Creates, checks and locks {@code dir}; a {@link StartupException} says what is wrong with it. */
  public static StateDir open(Path dir) {
    Path path = dir.toAbsolutePath().normalize();
    if (Files.exists(path, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(path)) {
      throw new StartupException("state directory " + path + " is not a directory (it is a file); "
          + "choose another with --state-dir");
    }
    try {
      Files.createDirectories(path);
    } catch (FileAlreadyExistsException e) {
      throw new StartupException("cannot create state directory " + path + ": " + e.getFile()
          + " is a file, not a directory");
    } catch (AccessDeniedException e) {
      throw new StartupException("cannot create state directory " + path + ": permission denied on " + e.getFile());
    } catch (FileSystemException e) {
      throw new StartupException("cannot create state directory " + path + ": " + reason(e));
    } catch (IOException e) {
      throw new StartupException("cannot create state directory " + path + ": " + e.getMessage());
    }
    // Files.isWritable says yes to root on a read-only mount: really write.
    try {
      Path probe = Files.createTempFile(path, ".write-check", ".tmp");
      Files.delete(probe);
    } catch (IOException e) {
      throw new StartupException("state directory " + path + " is not writable: " + reason(e));
    }
    FileChannel channel = null;
    try {
      channel = FileChannel.open(path.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        throw inUse(path);
      }
      return new StateDir(path, channel, lock);
    } catch (OverlappingFileLockException e) {
      closeQuietly(channel);
      throw inUse(path);
    } catch (IOException e) {
      closeQuietly(channel);
      throw new StartupException("cannot lock state directory " + path + ": " + reason(e));
    } catch (StartupException e) {
      closeQuietly(channel);
      throw e;
    }
  }

  private static StartupException inUse(Path path) {
    return new StartupException("state directory " + path + " is in use by another ordo server; "
        + "stop it or choose another with --state-dir");
  }

  private static String reason(IOException e) {
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof FileSystemException fse && fse.getReason() != null) {
      return fse.getReason().toLowerCase(java.util.Locale.ROOT);
    }
    return String.valueOf(e.getMessage());
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // nothing to do
      }
    }
  }

  public Path path() {
    return path;
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException ignored) {
      // the channel's close releases it too
    }
    closeQuietly(lockChannel);
  }
}
