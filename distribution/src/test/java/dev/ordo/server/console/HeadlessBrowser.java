package dev.ordo.server.console;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, installed by
 * {@code .ci/install-chromium.sh} when missing) driven by Selenium, and the few ways the console's
 * tests read a page: an element's text read in one script (a redraw cannot make it stale), a count,
 * a wait for a text, a click again if a redraw replaced the element.
 */
final class HeadlessBrowser implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(60);

  private final WebDriver driver;

  private HeadlessBrowser(WebDriver driver) {
    this.driver = driver;
  }

  /** Installs Chromium if needed and starts it with a fresh profile under {@code profile}. */
  static HeadlessBrowser start(Path profile) throws Exception {
    dev.ordo.server.ProjectTools.ensure("install-chromium.sh", Duration.ofMinutes(15), "/usr/bin/chromium",
        "/usr/bin/chromedriver");
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File("/usr/bin/chromedriver"))
        .usingAnyFreePort()
        .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    // The machine has no network beyond loopback: without these, Chromium waits on its own
    // background requests (updates, sync, QUIC probes) and a page load can hang.
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--window-size=1280,1000",
        "--user-data-dir=" + Files.createDirectories(profile));
    return new HeadlessBrowser(new ChromeDriver(service, options));
  }

  WebDriver driver() {
    return driver;
  }

  void open(String url) {
    driver.get(url);
  }

  Object js(String script, Object... args) {
    return ((JavascriptExecutor) driver).executeScript(script, args);
  }

  /** The text of the first element matching {@code css}, or null. */
  String text(String css) {
    Object t = js("const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : null;", css);
    return t == null ? null : t.toString();
  }

  long count(String css) {
    return ((Number) js("return document.querySelectorAll(arguments[0]).length;", css)).longValue();
  }

  /** Waits until the element shows {@code expected} (null: any text but the placeholder of no rate yet). */
  void awaitText(String css, String expected) {
    awaitText(css, expected, false);
  }

  /** Waits until the element's text contains {@code part}. */
  void awaitTextContaining(String css, String part) {
    awaitText(css, part, true);
  }

  private void awaitText(String css, String expected, boolean part) {
    try {
      new WebDriverWait(driver, WAIT).until(d -> {
        String t = text(css);
        if (expected == null) {
          return t != null && !t.isEmpty() && !t.equals("–");
        }
        return part ? t != null && t.contains(expected) : expected.equals(t);
      });
    } catch (org.openqa.selenium.TimeoutException e) {
      throw new AssertionError("'" + css + "' shows " + text(css) + ", not " + (part ? "a text containing " : "")
          + expected + " (page: " + text("main") + "; error: " + text("#error") + ")", e);
    }
  }

  /** Clicks the element, again if a redraw replaced it meanwhile. */
  void click(By by) {
    new WebDriverWait(driver, WAIT).ignoring(StaleElementReferenceException.class)
        .ignoring(NoSuchElementException.class)
        .until(d -> {
          d.findElement(by).click();
          return true;
        });
  }

  @Override
  public void close() {
    driver.quit();
  }
}
