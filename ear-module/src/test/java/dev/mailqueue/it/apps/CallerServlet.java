package dev.mailqueue.it.apps;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailQueueRemote;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailView;
import jakarta.annotation.Resource;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.transaction.UserTransaction;

import javax.naming.InitialContext;
import java.io.IOException;

/**
 * Another application on the same server: looks the queue's remote EJB up by its java:global name
 * and enqueues inside its own JTA transaction, which it commits or rolls back as asked.
 * {@code POST /caller/enqueue?to=..&subject=..&outcome=commit|rollback|invalid[&key=..]}; answers
 * {@code id messageId} (plus {@code duplicate} when an idempotency key repeated) or, for invalid, the
 * exception's class and fields. {@code outcome=find&id=..}
 * reads a mail through the remote view: {@code status attempts sentAt}. With {@code attachment=name}
 * the mail carries a file of that name ({@link #content()}) and the header {@code X-Sent-By: caller.war}.
 */
@WebServlet("/enqueue")
public class CallerServlet extends HttpServlet {

    static final String QUEUE = "java:global/mailqueue/mailqueue-ejb/Mails!dev.mailqueue.api.MailQueueRemote";

    @Resource
    UserTransaction transaction;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        String outcome = request.getParameter("outcome");
        try {
            MailQueueRemote queue = (MailQueueRemote) new InitialContext().lookup(QUEUE);
            if ("find".equals(outcome)) {
                MailView mail = queue.find(Long.parseLong(request.getParameter("id")));
                response.getWriter().print(mail.getStatus() + " " + mail.getAttempts().size() + " " + mail.getSentAt());
                return;
            }
            MailRequest mail = new MailRequest()
                    .from("orders@shop.example")
                    .to("invalid".equals(outcome) ? "not an address" : request.getParameter("to"))
                    .subject(request.getParameter("subject"))
                    .text("Sent through the remote EJB by another application.");
            String attachment = request.getParameter("attachment");
            if (attachment != null) {
                mail.attach(attachment, "application/octet-stream", content()).header("X-Sent-By", "caller.war");
            }
            transaction.begin();
            EnqueueReceipt receipt;
            try {
                String key = request.getParameter("key");
                receipt = key == null ? queue.enqueue(mail) : queue.enqueue(mail, key);
            } catch (InvalidMailException e) {
                transaction.rollback();
                response.getWriter().print(e.getClass().getName() + " " + e.getErrors());
                return;
            }
            if ("rollback".equals(outcome)) {
                transaction.rollback();
            } else {
                transaction.commit();
            }
            response.getWriter().print(receipt.getId() + " " + receipt.getMessageId()
                    + (receipt.isDuplicate() ? " duplicate" : ""));
        } catch (Exception e) {
            response.setStatus(500);
            e.printStackTrace(response.getWriter());
        }
    }

    /** @return the 100,000 bytes of the attachment: byte i is i mod 251 */
    public static byte[] content() {
        byte[] content = new byte[100_000];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i % 251);
        }
        return content;
    }
}
