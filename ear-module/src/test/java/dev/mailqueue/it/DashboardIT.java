package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.PageLoadStrategy;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.UsernameAndPassword;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.bidi.module.Network;
import org.openqa.selenium.bidi.network.AddInterceptParameters;
import org.openqa.selenium.bidi.network.InterceptPhase;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The dashboard (/admin/) in a real browser: Debian's headless Chromium driven by Selenium through
 * chromedriver. The operator logs in (HTTP Basic), sees queue depth, throughput and the newest mails,
 * clicks Requeue on a cancelled mail and Cancel on a queued one, and sees their status change. Runs
 * when the build found {@code /usr/bin/chromedriver} (profile {@code browser-tests}), else it is skipped.
 */
class DashboardIT extends QueueServerIT {

    private static final String DRIVER = System.getProperty("it.chromedriver", "");
    private static final String BROWSER = System.getProperty("it.chromium", "/usr/bin/chromium");

    private WebDriver browser;
    private Network network;
    private final CountDownLatch loggedIn = new CountDownLatch(1);
    private Path profile;

    @BeforeEach
    void openBrowser() throws IOException {
        assumeTrue(!DRIVER.isBlank() && new File(DRIVER).canExecute(),
                "no chromedriver: install Debian's chromium and chromium-driver to run the browser test");
        profile = Files.createTempDirectory("mailqueue-chromium");
        ChromeOptions options = new ChromeOptions().setBinary(BROWSER)
                .addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--disable-dev-shm-usage", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(DRIVER)).usingAnyFreePort().build();
        options.setCapability("webSocketUrl", true); // WebDriver BiDi, for the login below
        // get() returns at once: while a classic navigation waits, chromedriver does not process the BiDi
        // command that answers the navigation's own authentication challenge. The test waits for the
        // page itself (body[data-loaded]).
        options.setPageLoadStrategy(PageLoadStrategy.NONE);
        browser = new ChromeDriver(service, options);
        // The operator types admin's name and password when the browser asks (HTTP Basic): BiDi answers
        // the browser's authentication challenges, for the page and for its API calls alike.
        network = new Network(browser);
        network.addIntercept(new AddInterceptParameters(InterceptPhase.AUTH_REQUIRED));
        // Answered off the event thread: a BiDi command sent from an event handler waits for its reply on
        // the thread that would deliver it.
        network.onAuthRequired(challenge -> CompletableFuture.runAsync(() -> {
            network.continueWithAuth(challenge.getRequest().getRequestId(),
                    new UsernameAndPassword(TestUser.ADMIN.name(), TestUser.ADMIN.password()));
            loggedIn.countDown();
        }));
    }

    @AfterEach
    void closeBrowser() throws IOException {
        if (network != null) {
            network.close();
        }
        if (browser != null) {
            browser.quit();
        }
        if (profile != null) {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    @Test
    void anOperatorSeesTheNumbersAndRequeuesAndCancelsMailsWithAClick() throws InterruptedException {
        Instant later = Instant.now().plusSeconds(3600);
        EnqueueReceipt withdrawn = QueueApi.enqueue(new MailRequest().from("alice@sender.example")
                .to("dash-withdrawn@to.example").subject("cancelled by mistake").text("x").notBefore(later));
        assertThat(QueueApi.send("DELETE", "/api/mails/" + withdrawn.getId()).statusCode()).isEqualTo(200);
        EnqueueReceipt waiting = QueueApi.enqueue(new MailRequest().from("alice@sender.example")
                .to("dash-waiting@to.example").subject("<b>not</b> to be sent").text("x").notBefore(later));

        browser.get(QueueApi.BASE + "/admin/");
        // No classic command until the login is answered: chromedriver would hold it, and the answer
        // behind it, until the navigation ends.
        assertThat(loggedIn.await(30, TimeUnit.SECONDS)).as("the browser asked for a login").isTrue();
        // The tables are rebuilt every 5 s, so an element found a moment ago may be gone: look again.
        WebDriverWait wait = (WebDriverWait) new WebDriverWait(browser, Duration.ofSeconds(30))
                .ignoring(StaleElementReferenceException.class);
        wait.until(ExpectedConditions.attributeToBe(By.tagName("body"), "data-loaded", "true"));

        assertThat(Long.parseLong(browser.findElement(By.id("count-QUEUED")).getText())).isGreaterThanOrEqualTo(1);
        assertThat(Long.parseLong(browser.findElement(By.id("count-CANCELLED")).getText())).isGreaterThanOrEqualTo(1);
        assertThat(browser.findElements(By.cssSelector("#throughput tbody tr"))).hasSize(24);
        WebElement waitingRow = browser.findElement(By.id("mail-" + waiting.getId()));
        assertThat(waitingRow.getText()).as("mail text is shown as text").contains("<b>not</b> to be sent");

        click(wait, withdrawn.getId(), "button.requeue");
        wait.until(d -> !status(withdrawn.getId()).equals("CANCELLED"));
        assertThat(QueueApi.awaitStatus(withdrawn.getId(), MailStatus.SENT, Duration.ofSeconds(30)).getAttemptsRemaining())
                .isZero();
        wait.until(d -> status(withdrawn.getId()).equals("SENT"));

        click(wait, waiting.getId(), "button.cancel");
        wait.until(d -> status(waiting.getId()).equals("CANCELLED"));
        assertThat(QueueApi.find(waiting.getId()).getStatus()).isEqualTo(MailStatus.CANCELLED);
        assertThat(row(waiting.getId()).findElements(By.cssSelector("button.requeue"))).hasSize(1);
    }

    private void click(WebDriverWait wait, long id, String button) {
        wait.until(d -> {
            row(id).findElement(By.cssSelector(button)).click();
            return true;
        });
    }

    private WebElement row(long id) {
        return browser.findElement(By.id("mail-" + id));
    }

    private String status(long id) {
        return row(id).findElement(By.cssSelector("td.status")).getText();
    }
}
