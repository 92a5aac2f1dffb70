package dev.mailqueue.it.apps;

import jakarta.annotation.Resource;
import jakarta.mail.Address;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.MimeMessage;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.transaction.UserTransaction;

import javax.naming.InitialContext;
import java.io.IOException;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * An application written for a relay, unchanged: it builds a {@link MimeMessage} on its mail session and calls
 * {@link Transport#send}, inside its own JTA transaction that it commits or rolls back as asked, or outside one.
 * Its session names the queue's transport (protocol {@code mailqueue}), so the message is queued.
 * {@code POST /legacy/send?session=<jndi>&from=..&to=..&subject=..&outcome=commit|rollback|none[&header=..&value=..]};
 * answers the
 * message's Message-ID, or for a refusal {@code SendFailedException invalid=<addresses> unsent=<addresses>: <message>},
 * or another exception's class and message.
 */
@WebServlet("/send")
public class LegacyMailServlet extends HttpServlet {

    @Resource
    UserTransaction transaction;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        String outcome = request.getParameter("outcome");
        boolean inTransaction = !"none".equals(outcome);
        try {
            Session session = (Session) new InitialContext().lookup(request.getParameter("session"));
            MimeMessage message = new MimeMessage(session);
            message.setFrom(request.getParameter("from"));
            message.setRecipients(Message.RecipientType.TO, request.getParameter("to"));
            message.setSubject(request.getParameter("subject"), "UTF-8");
            message.setText("Sent by an application that knows nothing of the queue.", "UTF-8");
            String header = request.getParameter("header");
            if (header != null) { // as the application gives it: Jakarta Mail writes the value as it is
                message.setHeader(header, request.getParameter("value"));
            }
            if (inTransaction) {
                transaction.begin();
            }
            try {
                Transport.send(message);
            } catch (MessagingException e) {
                if (inTransaction) {
                    transaction.rollback();
                }
                throw e;
            }
            if ("rollback".equals(outcome)) {
                transaction.rollback();
            } else if (inTransaction) {
                transaction.commit();
            }
            response.getWriter().print(message.getMessageID());
        } catch (SendFailedException e) {
            response.getWriter().print("SendFailedException invalid=" + join(e.getInvalidAddresses()) + " unsent="
                    + join(e.getValidUnsentAddresses()) + ": " + e.getMessage());
        } catch (Exception e) {
            response.getWriter().print(e.getClass().getName() + ": " + e.getMessage());
            e.printStackTrace(); // to the server's log: what a test that fails on this answer needs
        }
    }

    private static String join(Address[] addresses) {
        return addresses == null ? "" : Arrays.stream(addresses).map(Address::toString).collect(Collectors.joining(","));
    }
}
