package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Several SMTP accounts on the test server: the default (GreenMail), 'backup' (a scripted SMTP server
 * with envelope sender bounces@backup.example, serving sender domain routed.example), and 'primary',
 * whose port nobody listens on and which fails over to 'backup'. Mail goes through the account it
 * names, else the one serving its sender's domain, else the default; each account's MAIL FROM is its
 * own; an unreachable account hands the mail to the next in the same attempt; an unknown account is
 * refused with a 400 naming the field.
 */
class AccountsIT extends QueueServerIT {

    static final int BACKUP_PORT = Integer.getInteger("it.smtp.backup.port", 3126);
    static ScriptedSmtpServer backup;

    @BeforeAll
    static void startBackup() {
        backup = ScriptedSmtpServer.start(BACKUP_PORT);
    }

    @AfterAll
    static void stopBackup() {
        backup.close();
    }

    @Test
    void aMailNamingAnAccountGoesThroughItWithTheAccountsEnvelopeSender() {
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().account("backup").from("news@sender.example")
                .to("reader@to.example").subject("through backup").text("x"));

        ScriptedSmtpServer.Arrival arrival = awaitArrival(receipt);
        assertThat(arrival.envelopeSender()).isEqualTo("bounces@backup.example");
        assertThat(arrival.recipients()).containsExactly("reader@to.example");
        MailView mail = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(mail.getAccount()).isEqualTo("backup");
        assertThat(mail.getAttempts()).singleElement().extracting(AttemptView::getAccount).isEqualTo("backup");
        assertThat(SMTP.countWithMessageId(receipt.getMessageId())).as("not through the default account").isZero();
    }

    @Test
    void theSenderDomainRoutesAMailThatNamesNoAccount() {
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("orders@Routed.Example")
                .to("buyer@to.example").subject("routed by domain").text("x"));

        assertThat(awaitArrival(receipt).envelopeSender()).isEqualTo("bounces@backup.example");
        assertThat(QueueApi.find(receipt.getId()).getAccount()).isEqualTo("backup");
    }

    @Test
    void otherMailGoesThroughTheDefaultAccountWithItsOwnSenderAsEnvelopeSender() throws Exception {
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("clerk@sender.example")
                .to("someone@to.example").subject("default account").text("x"));

        MailView mail = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(mail.getAccount()).isEqualTo("mailqueue");
        await().atMost(Duration.ofSeconds(10)).until(() -> SMTP.countWithMessageId(receipt.getMessageId()) == 1);
        assertThat(SMTP.inbox("someone@to.example")).singleElement()
                .satisfies(m -> assertThat(m.getHeader("Return-Path")).containsExactly("<clerk@sender.example>"));
        assertThat(backup.arrivals()).noneMatch(a -> receipt.getMessageId().equals(a.messageId()));
    }

    @Test
    void anUnreachableAccountFailsOverToTheNextInTheSameAttempt() {
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().account("primary").from("alerts@sender.example")
                .to("oncall@to.example").subject("failover").text("x"));

        ScriptedSmtpServer.Arrival arrival = awaitArrival(receipt);
        assertThat(arrival.envelopeSender()).as("the account that sent it").isEqualTo("bounces@backup.example");
        MailView mail = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(mail.getAccount()).as("routed to").isEqualTo("primary");
        assertThat(mail.getAttempts()).as("one attempt, sent by the failover account").singleElement()
                .satisfies(attempt -> {
                    assertThat(attempt.getOutcome()).isEqualTo("SENT");
                    assertThat(attempt.getAccount()).isEqualTo("backup");
                });
    }

    @Test
    void aRefusalByTheAccountsServerIsAFailedAttemptOfThatAccountAndTheMailIsTriedAgain() {
        backup.refuseNext(1, ScriptedSmtpServer.Stage.DATA, 451, "4.3.0 Temporary failure, try again");
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().account("backup").from("news@sender.example")
                .to("patient@to.example").subject("second time lucky").text("x"));

        MailView mail = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(60));
        assertThat(mail.getAttempts()).hasSize(2);
        assertThat(mail.getAttempts().get(0)).satisfies(attempt -> {
            assertThat(attempt.getOutcome()).isEqualTo("FAILED");
            assertThat(attempt.getSmtpReplyCode()).isEqualTo(451);
            assertThat(attempt.getAccount()).isEqualTo("backup");
        });
        assertThat(mail.getAttempts().get(1).getAccount()).isEqualTo("backup");
        assertThat(backup.refusals()).anySatisfy(r -> assertThat(r.stage()).isEqualTo(ScriptedSmtpServer.Stage.DATA));
        assertThat(awaitArrival(receipt).recipients()).containsExactly("patient@to.example");
    }

    @Test
    void anUnknownAccountIsRefusedWith400NamingTheFieldAndNothingIsQueued() {
        long before = QueueApi.storedMails();

        HttpResponse<String> response = QueueApi.post(QueueApi.toJson(new MailRequest().account("marketing")
                .from("a@sender.example").to("b@to.example").subject("s").text("x")));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> errors = (List<Map<String, Object>>) QueueApi.jsonObject(response.body()).get("errors");
        assertThat(errors).singleElement().satisfies(error -> {
            assertThat(error.get("field")).isEqualTo("account");
            // Since issue 16 the refusal no longer lists the server's accounts: they are no business of a sender.
            assertThat((String) error.get("message")).contains("not an SMTP account").doesNotContain("backup", "primary");
        });
        assertThat(QueueApi.storedMails()).isEqualTo(before);
    }

    private static ScriptedSmtpServer.Arrival awaitArrival(EnqueueReceipt receipt) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> backup.arrivals().stream().anyMatch(a -> receipt.getMessageId().equals(a.messageId())));
        return backup.arrivals().stream().filter(a -> receipt.getMessageId().equals(a.messageId()))
                .reduce((a, b) -> {
                    throw new AssertionError("arrived twice: " + receipt.getMessageId());
                }).orElseThrow();
    }
}
