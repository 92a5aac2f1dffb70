package dev.mailqueue.it.apps;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailAdminRemote;
import dev.mailqueue.api.MailQueueRemote;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.SenderNotAllowedException;
import jakarta.annotation.Resource;
import jakarta.ejb.EJBAccessException;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.transaction.UserTransaction;

import javax.naming.InitialContext;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Another application on the same server: looks the queue's remote EJBs up by their java:global names
 * and calls them as the user the request authenticated as (HTTP Basic; none: unauthenticated; the
 * identity propagates to the EJB call), enqueueing inside its own JTA transaction, which it commits or rolls back as asked.
 * {@code POST /caller/enqueue?to=..&subject=..&from=..&outcome=commit|rollback|invalid[&key=..]}; answers
 * {@code id messageId} (plus {@code duplicate} when an idempotency key repeated) or, for a refused
 * mail, the exception's class and fields. With {@code attachment=name} the mail carries a file of that
 * name ({@link #content()}) and the header {@code X-Sent-By: caller.war}. {@code outcome=find&id=..}
 * reads a mail through the remote view: {@code status attempts sentAt}. {@code outcome=statistics} calls
 * the admin view: {@code QUEUED-count}. A call the EJB refuses for lack of a role answers
 * {@code jakarta.ejb.EJBAccessException}. {@code outcome=batch} enqueues several mails in one call
 * ({@link #enqueueAll}).
 */
@WebServlet("/enqueue")
public class CallerServlet extends HttpServlet {

    static final String QUEUE = "java:global/mailqueue/mailqueue-ejb/Mails!dev.mailqueue.api.MailQueueRemote";
    static final String ADMIN = "java:global/mailqueue/mailqueue-ejb/QueueAdministration!dev.mailqueue.api.MailAdminRemote";

    @Resource
    UserTransaction transaction;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        String outcome = request.getParameter("outcome");
        try {
            if ("statistics".equals(outcome)) {
                MailAdminRemote admin = (MailAdminRemote) new InitialContext().lookup(ADMIN);
                response.getWriter().print(admin.statistics().getCountsByStatus().get("QUEUED"));
                return;
            }
            MailQueueRemote queue = (MailQueueRemote) new InitialContext().lookup(QUEUE);
            if ("find".equals(outcome)) {
                MailView mail = queue.find(Long.parseLong(request.getParameter("id")));
                response.getWriter().print(mail.getStatus() + " " + mail.getAttempts().size() + " " + mail.getSentAt());
                return;
            }
            if ("batch".equals(outcome)) {
                enqueueAll(queue, request, response);
                return;
            }
            if ("validate".equals(outcome)) { // Bean Validation in the caller, with the client jar's constraints alone
                MailRequest mail = new MailRequest().from(request.getParameter("from")).to(request.getParameter("to"))
                        .subject("validated by the caller").text("x");
                try (jakarta.validation.ValidatorFactory factory = jakarta.validation.Validation.buildDefaultValidatorFactory()) {
                    response.getWriter().print(factory.getValidator().validate(mail).stream()
                            .map(v -> v.getPropertyPath() + ": " + v.getMessage()).sorted().toList());
                }
                return;
            }
            if ("raw".equals(outcome)) {
                enqueueRaw(queue, request, response);
                return;
            }
            String from = request.getParameter("from");
            MailRequest mail = new MailRequest()
                    .from(from == null ? "orders@shop.example" : from)
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
                refused(response, e, e.getErrors());
                return;
            } catch (SenderNotAllowedException e) {
                refused(response, e, e.getErrors());
                return;
            } catch (EJBAccessException e) {
                transaction.rollback();
                throw e;
            }
            if ("rollback".equals(outcome)) {
                transaction.rollback();
            } else {
                transaction.commit();
            }
            response.getWriter().print(receipt.getId() + " " + receipt.getMessageId()
                    + (receipt.isDuplicate() ? " duplicate" : ""));
        } catch (EJBAccessException e) {
            response.getWriter().print(e.getClass().getName());
        } catch (Exception e) {
            response.setStatus(500);
            e.printStackTrace(response.getWriter());
        }
    }

    /**
     * {@code outcome=batch&count=..&bytes=..&to=..&reference=..}: enqueues {@code count} mails in one
     * {@code enqueueAll}, each with a file of {@code bytes} zero bytes, in a transaction it commits; answers the
     * ids, or for a refused batch the exception's class and fields (the transaction rolled back).
     */
    private void enqueueAll(MailQueueRemote queue, HttpServletRequest request, HttpServletResponse response) throws Exception {
        int count = Integer.parseInt(request.getParameter("count"));
        byte[] file = new byte[Integer.parseInt(request.getParameter("bytes"))];
        List<MailRequest> mails = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            mails.add(new MailRequest().from("orders@shop.example").to(request.getParameter("to"))
                    .subject("Part " + (i + 1) + " of " + count).text("Sent through the remote EJB in one batch.")
                    .reference(request.getParameter("reference")).attach("part-" + (i + 1) + ".bin", "application/octet-stream", file));
        }
        transaction.begin();
        List<EnqueueReceipt> receipts;
        try {
            receipts = queue.enqueueAll(mails);
        } catch (InvalidMailException e) {
            refused(response, e, e.getErrors());
            return;
        }
        transaction.commit();
        response.getWriter().print(String.join(" ", receipts.stream().map(r -> Long.toString(r.getId())).toList()));
    }

    /**
     * {@code outcome=raw&message=<base64url>}: enqueues the message's bytes through {@code enqueueRaw} in a
     * transaction it commits; answers {@code id messageId}, or for a refused message the exception's class and
     * fields (the transaction rolled back).
     */
    private void enqueueRaw(MailQueueRemote queue, HttpServletRequest request, HttpServletResponse response) throws Exception {
        byte[] message = java.util.Base64.getUrlDecoder().decode(request.getParameter("message"));
        transaction.begin();
        EnqueueReceipt receipt;
        try {
            receipt = queue.enqueueRaw(new dev.mailqueue.api.RawMail(message), null);
        } catch (InvalidMailException e) {
            refused(response, e, e.getErrors());
            return;
        } catch (SenderNotAllowedException e) {
            refused(response, e, e.getErrors());
            return;
        }
        transaction.commit();
        response.getWriter().print(receipt.getId() + " " + receipt.getMessageId());
    }

    /** Rolls the transaction back and answers the refusal: the exception's class and the fields it names. */
    private void refused(HttpServletResponse response, Exception refusal, List<dev.mailqueue.api.FieldError> errors)
            throws Exception {
        transaction.rollback();
        response.getWriter().print(refusal.getClass().getName() + " " + errors);
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
