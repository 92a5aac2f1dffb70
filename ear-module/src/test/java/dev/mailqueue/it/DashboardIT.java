package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.PageLoadStrategy;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.UsernameAndPassword;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.bidi.module.BrowsingContextInspector;
import org.openqa.selenium.bidi.module.Network;
import org.openqa.selenium.bidi.network.AddInterceptParameters;
import org.openqa.selenium.bidi.network.InterceptPhase;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The operator's console (/admin/) in a real browser: Debian's headless Chromium driven by Selenium through
 * chromedriver, one browser for the class, logged in once as admin (HTTP Basic, answered over WebDriver BiDi).
 * The operator finds a failed mail by its recipient, reads its attempt log, requeues it and sees it sent;
 * the search lives in the URL (back and reload restore it); a paused account holds its mail until resumed;
 * a mail's HTML runs no script; the suppression list takes and gives back an address. Each page is saved as
 * a PNG under {@code target/screenshots/}. Runs when the build found {@code /usr/bin/chromedriver} (profile
 * {@code browser-tests}), else it is skipped.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class DashboardIT extends QueueServerIT {

    private static final String DRIVER = System.getProperty("it.chromedriver", "");
    private static final String BROWSER = System.getProperty("it.chromium", "/usr/bin/chromium");
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");
    private static final String CONSOLE = QueueApi.BASE + "/admin/";

    private static WebDriver browser;
    private static Network network;
    private static Path profile;
    private static WebDriverWait wait;

    @BeforeAll
    static void openBrowser() throws IOException, InterruptedException {
        assumeTrue(!DRIVER.isBlank() && new File(DRIVER).canExecute(),
                "no chromedriver: install Debian's chromium and chromium-driver to run the browser test");
        profile = Files.createTempDirectory("mailqueue-chromium");
        ChromeOptions options = new ChromeOptions().setBinary(BROWSER)
                .addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1280,800",
                        "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(DRIVER)).usingAnyFreePort().build();
        options.setCapability("webSocketUrl", true); // WebDriver BiDi, for the login below
        // get() returns at once: while a classic navigation waits, chromedriver does not process the BiDi
        // command that answers the navigation's own authentication challenge. The tests wait for the
        // page itself (body[data-loaded]).
        options.setPageLoadStrategy(PageLoadStrategy.NONE);
        browser = new ChromeDriver(service, options);
        // The operator types admin's name and password when the browser asks (HTTP Basic): BiDi answers
        // the browser's authentication challenges, for the page and for its API calls alike.
        CountDownLatch loggedIn = new CountDownLatch(1);
        network = new Network(browser);
        network.addIntercept(new AddInterceptParameters(InterceptPhase.AUTH_REQUIRED));
        // Answered off the event thread: a BiDi command sent from an event handler waits for its reply on
        // the thread that would deliver it.
        network.onAuthRequired(challenge -> CompletableFuture.runAsync(() -> {
            network.continueWithAuth(challenge.getRequest().getRequestId(),
                    new UsernameAndPassword(TestUser.ADMIN.name(), TestUser.ADMIN.password()));
            loggedIn.countDown();
        }));
        // No classic command until the page has loaded: chromedriver holds one sent during a navigation,
        // and every BiDi answer behind it, until the navigation ends; a subresource of the page (its
        // script) that asks for the login meanwhile would wait for an answer that never comes. So the
        // test waits for the load event itself, over BiDi.
        CountDownLatch pageLoaded = new CountDownLatch(1);
        try (BrowsingContextInspector inspector = new BrowsingContextInspector(browser)) {
            inspector.onBrowsingContextLoaded(navigation -> pageLoaded.countDown());
            browser.get(CONSOLE);
            assertThat(loggedIn.await(30, TimeUnit.SECONDS)).as("the browser asked for a login").isTrue();
            assertThat(pageLoaded.await(60, TimeUnit.SECONDS)).as("the console loaded").isTrue();
        }
        // Pages are redrawn every few seconds, so an element found a moment ago may be gone: look again.
        wait = (WebDriverWait) new WebDriverWait(browser, Duration.ofSeconds(30))
                .ignoring(StaleElementReferenceException.class);
        browser.manage().window().setSize(new Dimension(1280, 800));
        Files.createDirectories(SCREENSHOTS.resolve("last"));
    }

    @AfterAll
    static void closeBrowser() throws IOException {
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

    /** What the browser showed at the end of each test, to see why one failed. */
    @AfterEach
    void keepTheLastView(TestInfo test) throws IOException {
        if (browser != null) {
            screenshot("last/" + test.getTestMethod().map(m -> m.getName()).orElse("test"));
        }
    }

    @Test
    void anOperatorFindsAFailedMailReadsItsAttemptsAndRequeuesItUntilItIsSent() throws IOException {
        String recipient = "dash-" + UUID.randomUUID().toString().substring(0, 8) + "@to.example";
        EnqueueReceipt doomed = QueueApi.enqueue(new MailRequest().from("alice@sender.example").to(recipient)
                .subject("<b>not</b> markup").text("x").notBefore(Instant.now().plusSeconds(3600)));
        // FAILED after one attempt that got "550 refused by the probe" (the test probe writes it, so the
        // mail's next attempt, to GreenMail, is accepted: a deterministic failure, then a delivery)
        assertThat(QueueApi.postForm("/probe/db?op=fail&code=550&id=" + doomed.getId()).body().strip()).isEqualTo("1");

        show("#/");
        wait.until(d -> !d.findElements(By.cssSelector("#charts svg")).isEmpty());
        assertThat(Long.parseLong(text("#count-FAILED"))).isGreaterThanOrEqualTo(1);
        assertThat(browser.findElements(By.cssSelector("#charts svg[role=img] title"))).as("mails per minute, queue depth")
                .hasSize(2);
        screenshot("overview");
        // the charts' text alternative: their numbers as a table, a row a minute, then a row an hour for 7 days
        browser.findElement(By.id("chart-table-toggle")).click();
        assertThat(browser.findElements(By.cssSelector("#chart-table tbody tr"))).hasSize(60);
        new Select(browser.findElement(By.id("chart-range"))).selectByValue("week");
        wait.until(d -> d.findElements(By.cssSelector("#chart-table tbody tr")).size() == 168);
        browser.findElement(By.id("chart-table-toggle")).click();
        screenshotWhole("overview-whole");

        show("#/mails");
        WebElement field = browser.findElement(By.cssSelector("#search-form input[name=recipient]"));
        field.sendKeys(recipient);
        browser.findElement(By.cssSelector("#search-form input[name=status][value=FAILED]")).click();
        browser.findElement(By.id("search-button")).click();
        wait.until(ExpectedConditions.urlContains("recipient=" + recipient.replace("@", "%40")));
        By result = By.id("result-" + doomed.getId());
        // read again when the table was redrawn meanwhile (the wait ignores a stale element)
        String row = wait.until(d -> d.findElement(result).isDisplayed() ? d.findElement(result).getText() : null);
        assertThat(row).as("mail text is shown as text").contains("<b>not</b> markup").contains("FAILED");
        // the row may still be the unfiltered list's while the search runs ("Searching…"): wait for its answer
        wait.until(d -> !text("#search-summary").startsWith("Searching"));
        assertThat(text("#search-summary")).isEqualTo("Mails 1 to 1 of 1.");
        String filtered = wait.until(d -> d.findElement(result).isDisplayed() ? d.findElement(result).getText() : null);
        assertThat(filtered).contains("FAILED");
        screenshot("search");

        click(By.cssSelector("#result-" + doomed.getId() + " a.mail-link"));
        wait.until(ExpectedConditions.urlToBe(CONSOLE + "#/mails/" + doomed.getId()));
        wait.until(d -> text("#mail-attempts tbody").contains("550 refused by the probe"));
        assertThat(text("#mail-status")).isEqualTo("FAILED");
        screenshot("detail");
        screenshotWhole("detail-whole");

        browser.findElement(By.cssSelector("#mail-actions button.requeue")).click();
        // the page reads the mail again every second while it is due or SENDING
        wait.until(d -> text("#mail-status").equals("SENT"));
        assertThat(QueueApi.find(doomed.getId()).getStatus()).isEqualTo(MailStatus.SENT);
        assertThat(text("#mail-attempts tbody")).contains("550 refused by the probe").contains("SENT");
        assertThat(text("#notice")).contains("queued again");

        // the search is in the URL: back to it, and a reload, show the same search and its result
        browser.navigate().back();
        wait.until(ExpectedConditions.urlContains("#/mails?"));
        waitLoaded("mails");
        assertThat(browser.findElement(By.cssSelector("#search-form input[name=recipient]")).getAttribute("value"))
                .isEqualTo(recipient);
        ((JavascriptExecutor) browser).executeScript("document.body.dataset.before = 'reload'");
        browser.navigate().refresh();
        wait.until(d -> d.findElement(By.tagName("body")).getAttribute("data-before") == null);
        waitLoaded("mails");
        assertThat(browser.findElement(By.cssSelector("#search-form input[name=recipient]")).getAttribute("value"))
                .isEqualTo(recipient);
        assertThat(browser.findElement(By.cssSelector("#search-form input[name=status][value=FAILED]")).isSelected())
                .isTrue();
        assertThat(text("#search-summary")).as("it is SENT now").isEqualTo("No mail matches.");
    }

    @Test
    void aBulkActionShowsHowManyMailsItConcernsAsksAndSaysHowManyChanged() {
        String domain = "dash-" + UUID.randomUUID().toString().substring(0, 8) + ".example";
        List<EnqueueReceipt> later = Stream.of("one", "two").map(name -> QueueApi.enqueue(new MailRequest()
                .from("alice@sender.example").to(name + "@" + domain).subject("bulk " + name).text("x")
                .notBefore(Instant.now().plusSeconds(3600)))).toList();
        show("#/mails?recipient=%40" + domain);
        assertThat(text("#search-summary")).isEqualTo("Mails 1 to 2 of 2.");
        browser.findElement(By.cssSelector("button[data-bulk=cancel]")).click();
        assertThat(text("#bulk-question")).startsWith("Cancel the 2 mails this search finds");
        browser.findElement(By.id("bulk-yes")).click();
        wait.until(d -> text("#notice").equals("Cancel: 2 mails changed."));
        later.forEach(r -> assertThat(QueueApi.find(r.getId()).getStatus()).isEqualTo(MailStatus.CANCELLED));
        wait.until(d -> text("#results tbody").contains("CANCELLED") && !text("#results tbody").contains("QUEUED"));
    }

    @Test
    void aPausedAccountHoldsItsMailUntilTheOperatorResumesIt() throws IOException {
        assertThat(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/dispatch").statusCode())
                .as("GET /api/admin/dispatch").isEqualTo(200);
        try {
            show("#/dispatch");
            click(By.id("account-mailqueue"));
            wait.until(d -> text("#paused-banner").contains("Paused accounts: mailqueue"));
            EnqueueReceipt held = QueueApi.enqueue(new MailRequest().from("alice@sender.example")
                    .to("dash-paused@to.example").subject("waits for the resume").text("x").account("mailqueue"));
            screenshot("pause");

            show("#/mails/" + held.getId());
            sleep(Duration.ofSeconds(2)); // four dispatch intervals of the test server
            assertThat(text("#mail-status")).isEqualTo("QUEUED");
            assertThat(text("#mail-attempts tbody")).isEqualTo("no attempt yet");
            assertThat(text("#paused-banner")).contains("mailqueue");

            click(By.cssSelector("#paused-banner a"));
            waitLoaded("dispatch");
            click(By.id("account-mailqueue"));
            wait.until(d -> !text("#paused-banner").contains("mailqueue"));
            assertThat(QueueApi.awaitStatus(held.getId(), MailStatus.SENT, Duration.ofSeconds(20)).getStatus())
                    .isEqualTo(MailStatus.SENT);
            browser.navigate().back();
            wait.until(d -> text("#mail-status").equals("SENT"));
        } finally {
            QueueApi.sendAs(TestUser.ADMIN, "POST", "/api/admin/accounts/mailqueue/resume");
        }
    }

    @Test
    void aMailsHtmlIsShownWithoutRunningItsScripts() throws IOException {
        EnqueueReceipt hostile = QueueApi.enqueue(new MailRequest().from("alice@sender.example")
                .to("dash-script@to.example").subject("script inside").text("the text body")
                .html("<p id=\"shown\">shown as HTML</p>"
                        + "<script>document.body.dataset.ran = 'yes'; parent.document.title = 'taken over';</script>"
                        + "<img src=\"x\" onerror=\"parent.document.body.dataset.ran = 'img'\">")
                .attach("notes.txt", "text/plain", "attached".getBytes(StandardCharsets.UTF_8))
                .notBefore(Instant.now().plusSeconds(3600)));
        show("#/mails/" + hostile.getId());
        String srcdoc = browser.findElement(By.id("mail-html")).getAttribute("srcdoc");
        assertThat(srcdoc).as("the HTML body's frame").isNotEmpty();
        assertThat(text("#mail-text")).isEqualTo("the text body");
        assertThat(text("#mail-attachments a")).isEqualTo("notes.txt");
        assertThat(attribute("#mail-attachments a", "href")).isEqualTo(QueueApi.BASE + "/api/admin/mails/" + hostile.getId() + "/attachments/0");
        assertThat(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + hostile.getId() + "/attachments/0").body())
                .isEqualTo("attached");
        screenshotWhole("detail-html");
        assertThat(browser.findElement(By.id("mail-html")).getAttribute("sandbox")).isEmpty();
        browser.switchTo().frame(browser.findElement(By.id("mail-html")));
        try {
            assertThat(wait.until(d -> d.findElement(By.id("shown"))).getText()).isEqualTo("shown as HTML");
            sleep(Duration.ofMillis(500));
            assertThat(browser.findElement(By.tagName("body")).getAttribute("data-ran")).isNull();
        } finally {
            browser.switchTo().defaultContent();
        }
        assertThat(browser.findElement(By.tagName("body")).getAttribute("data-ran")).isNull();
        assertThat(browser.getTitle()).isEqualTo("mailqueue console");
    }

    @Test
    void theSuppressionListTakesAnAddressAndGivesItBack() throws IOException {
        String address = "dash-" + UUID.randomUUID().toString().substring(0, 8) + "@suppressed.example";
        show("#/suppressions");
        WebElement add = browser.findElement(By.id("suppression-add"));
        add.findElement(By.name("address")).sendKeys(address);
        add.findElement(By.name("note")).sendKeys("asked by phone");
        add.findElement(By.cssSelector("button[type=submit]")).click();
        wait.until(d -> text("#notice").equals(address + " is suppressed."));
        assertThat(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/suppressions/" + address).statusCode())
                .isEqualTo(200);
        WebElement search = browser.findElement(By.id("suppression-address"));
        search.sendKeys(address);
        browser.findElement(By.cssSelector("#suppression-search button[type=submit]")).click();
        wait.until(ExpectedConditions.urlContains("address="));
        wait.until(d -> text("#suppressions tbody").contains(address) && text("#suppressions tbody").contains("asked by phone"));
        screenshot("suppressions");

        browser.findElement(By.cssSelector("#suppressions button.remove")).click();
        wait.until(d -> text("#suppressions tbody").equals("no entry"));
        HttpResponse<String> gone = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/suppressions/" + address);
        assertThat(gone.statusCode()).isEqualTo(404);

        // and at phone width, the overview
        browser.manage().window().setSize(new Dimension(375, 800));
        try {
            show("#/");
            wait.until(d -> !d.findElements(By.cssSelector("#charts svg")).isEmpty());
            screenshot("overview-phone");
        } finally {
            browser.manage().window().setSize(new Dimension(1280, 800));
        }
    }

    @Test
    void theDkimPageShowsTheRecordToPublishForEachKey() throws IOException {
        show("#/dkim");
        String keys = text("#dkim-keys tbody");
        assertThat(keys).contains("signed.example", "it2026._domainkey.signed.example", "v=DKIM1; k=rsa; p=MIIB",
                "2048 bits");
        screenshot("dkim");
    }

    @Test
    void theTemplatesPageListsATemplateAndPreviewsItWithEscapedVariables() throws IOException {
        String name = "console-" + Long.toString(System.nanoTime(), 36);
        var stored = QueueApi.sendAs(TestUser.ADMIN, "PUT", "/api/admin/templates/" + name, "{\"defaultLocale\":\"en\","
                + "\"locales\":{\"en\":{\"subject\":\"Hi ${who}\",\"html\":\"<p>Hello <b>${who}</b></p>\"},"
                + "\"de\":{\"subject\":\"Hallo ${who}\",\"html\":\"<p>Hallo <b>${who}</b></p>\"}}}");
        assertThat(stored.statusCode()).as(stored.body()).isEqualTo(201);

        show("#/templates");
        assertThat(text("#templates tbody")).contains(name, "de, en");
        click(By.cssSelector("#templates button[data-name='" + name + "']"));
        WebElement form = browser.findElement(By.id("template-preview"));
        form.findElement(By.name("locale")).sendKeys("de-CH");
        WebElement variables = form.findElement(By.name("variables"));
        variables.clear();
        variables.sendKeys("{\"who\": \"<img src=x onerror=alert(1)>\"}");
        form.findElement(By.cssSelector("button[type='submit']")).click();

        wait.until(d -> !text("#preview-subject").isEmpty());
        assertThat(text("#preview-locale")).isEqualTo("de");
        assertThat(text("#preview-subject")).isEqualTo("Hallo <img src=x onerror=alert(1)>");
        assertThat(attribute("#preview-html", "srcdoc")).contains("&lt;img src=x onerror=alert(1)&gt;");
        assertThat(text("#template-source")).contains("[en, default]", "Hello <b>${who}</b>");
        screenshot("templates");
    }

    /** Goes to a view of the console and waits until it has read what it shows. */
    private static void show(String fragment) {
        browser.get(CONSOLE + fragment);
        String page = fragment.equals("#/") ? "overview" : fragment.matches("#/mails/\\d+") ? "mail"
                : fragment.substring(2).replaceAll("[?].*", "");
        waitLoaded(page);
        if (page.equals("mail")) {
            wait.until(d -> text("#mail-title").startsWith("Mail " + fragment.substring("#/mails/".length()) + ":"));
        }
    }

    private static void waitLoaded(String page) {
        wait.until(d -> {
            WebElement body = d.findElement(By.tagName("body"));
            return page.equals(body.getAttribute("data-page")) && "true".equals(body.getAttribute("data-loaded"));
        });
    }

    /** Clicks the element; found again when the page redrew it meanwhile. */
    private static void click(By element) {
        wait.until(d -> {
            d.findElement(element).click();
            return true;
        });
    }

    /** The element's attribute; looked up again when the page redrew it meanwhile. */
    private static String attribute(String css, String name) {
        return wait.until(d -> d.findElement(By.cssSelector(css)).getAttribute(name));
    }

    /** The element's text; looked up again when the page redrew it meanwhile (the wait ignores stale elements). */
    private static String text(String css) {
        return wait.until(d -> d.findElement(By.cssSelector(css)).getText());
    }

    private static void screenshot(String name) throws IOException {
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** The whole page, not only the window: the window made as tall as the page for a moment. */
    private static void screenshotWhole(String name) throws IOException {
        Dimension size = browser.manage().window().getSize();
        long height = ((Number) ((JavascriptExecutor) browser).executeScript(
                "return document.documentElement.scrollHeight")).longValue();
        browser.manage().window().setSize(new Dimension(size.getWidth(), (int) Math.min(4000, height + 150)));
        try {
            screenshot(name);
        } finally {
            browser.manage().window().setSize(size);
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
