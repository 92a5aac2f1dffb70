package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Configuration of the second test server for the fault tests: an SMTP account {@code faulty} that only
 * the second server has (so only it claims that account's mail; the first server leaves it alone),
 * pointing at a scripted SMTP server of the test, which the test sender may name, and optionally the
 * database behind a proxy.
 */
final class FaultyAccount {

    /** The test servers' accounts (integration-tests.xml), plus {@code faulty}. */
    static final String ACCOUNTS = "mailqueue,primary,backup,throttled,slow,tardy,laggard,silent,verp,utf8,ascii,metered,faulty";

    private FaultyAccount() {
    }

    /**
     * @param smtpPort the scripted SMTP server's port
     * @param dbPort   the database port the second server connects to (a proxy's), or 0 for the usual one
     * @return server.xml elements for {@link SecondServer#start(String)}
     */
    static String config(int smtpPort, int dbPort) {
        String db = dbPort == 0 ? "" : "<variable name=\"mailqueue.db.port\" value=\"" + dbPort + "\"/>\n";
        return db + """
                <variable name="mailqueue.accounts" value="%s"/>
                <variable name="mailqueue.security.allowed-accounts.sender" value="faulty"/>
                <mailSession mailSessionID="faulty" jndiName="mail/faulty" description="IT: fault tests"
                             transportProtocol="smtp" host="127.0.0.1" from="it@localhost" user="it" password="unused">
                    <property name="mail.smtp.port" value="%d"/>
                    <property name="mail.smtp.connectiontimeout" value="5000"/>
                    <property name="mail.smtp.timeout" value="5000"/>
                    <property name="mail.smtp.writetimeout" value="5000"/>
                    <property name="mail.smtp.sendpartial" value="true"/>
                </mailSession>
                """.formatted(ACCOUNTS, smtpPort);
    }

    /**
     * Enqueues mails for the {@code faulty} account on the second server, in batches of 500, each to its
     * own recipient {@code <who><i>@<domain>}.
     *
     * @param mails  how many, 1 or more
     * @param from   the sender's local part (at sender.example)
     * @param who    the recipients' local part before their number
     * @param domain the recipients' domain
     * @return the receipts, in order
     */
    static List<EnqueueReceipt> enqueue(int mails, String from, String who, String domain) {
        List<EnqueueReceipt> receipts = new ArrayList<>(mails);
        for (int first = 0; first < mails; first += 500) {
            List<String> batch = new ArrayList<>();
            for (int i = first; i < Math.min(first + 500, mails); i++) {
                batch.add(QueueApi.toJson(new MailRequest().from(from + "@sender.example").to(who + i + "@" + domain)
                        .subject(from + " " + i).text("mail " + i).account("faulty")));
            }
            HttpResponse<String> response = QueueApi.postTo(SecondServer.BASE, "/api/mails/batch", "[" + String.join(",", batch) + "]");
            assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
            receipts.addAll(QueueApi.receipts(response.body()));
        }
        return receipts;
    }
}
