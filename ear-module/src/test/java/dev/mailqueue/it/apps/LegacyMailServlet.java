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
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * An application written for a relay, unchanged: it builds a {@link MimeMessage} on its mail session and calls
 * {@link Transport#send}, inside its own JTA transaction that it commits or rolls back as asked, or outside one.
 * Its session names the queue's transport (protocol {@code mailqueue}), so the message is queued.
 * {@code POST /legacy/send?session=<jndi>&from=..&to=..&subject=..&outcome=commit|rollback|none[&header=..&value=..]
 * [&orders=<jndi>&order=<id>]}: with {@code orders}, the application also writes the order to its own database (a
 * row of table LEGACY_ORDER in that data source) in the same transaction, before it sends; answers the
 * message's Message-ID, or for a refusal {@code SendFailedException invalid=<addresses> unsent=<addresses>: <message>},
 * or another exception's class and message. {@code GET /legacy/send?orders=<jndi>&order=<id>} answers how many rows
 * that order has in the application's database.
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
            String orders = request.getParameter("orders");
            if (orders != null) {
                createTable(orders);
            }
            if (inTransaction) {
                transaction.begin();
            }
            try {
                if (orders != null) {
                    writeOrder(orders, request.getParameter("order"));
                }
                Transport.send(message);
            } catch (MessagingException | SQLException | RuntimeException e) {
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

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        String orders = request.getParameter("orders");
        try {
            createTable(orders);
            try (Connection c = dataSource(orders).getConnection();
                 PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM LEGACY_ORDER WHERE ID = ?")) {
                s.setString(1, request.getParameter("order"));
                try (ResultSet r = s.executeQuery()) {
                    r.next();
                    response.getWriter().print(r.getLong(1));
                }
            }
        } catch (Exception e) {
            response.setStatus(500);
            response.getWriter().print(e.getClass().getName() + ": " + e.getMessage());
        }
    }

    private static DataSource dataSource(String jndiName) throws NamingException {
        return (DataSource) new InitialContext().lookup(jndiName);
    }

    /** Creates the application's table, outside any transaction, unless it exists. */
    private static synchronized void createTable(String orders) throws NamingException, SQLException {
        try (Connection c = dataSource(orders).getConnection()) {
            try (ResultSet tables = c.getMetaData().getTables(null, null, "LEGACY_ORDER", null)) {
                if (tables.next()) {
                    return;
                }
            }
            try (Statement s = c.createStatement()) {
                s.executeUpdate("CREATE TABLE LEGACY_ORDER (ID VARCHAR(64) NOT NULL)");
            }
        }
    }

    /** Writes the order in the current transaction: the connection is enlisted in it. */
    private static void writeOrder(String orders, String order) throws NamingException, SQLException {
        try (Connection c = dataSource(orders).getConnection();
             PreparedStatement s = c.prepareStatement("INSERT INTO LEGACY_ORDER (ID) VALUES (?)")) {
            s.setString(1, order);
            s.executeUpdate();
        }
    }

    private static String join(Address[] addresses) {
        return addresses == null ? "" : Arrays.stream(addresses).map(Address::toString).collect(Collectors.joining(","));
    }
}
