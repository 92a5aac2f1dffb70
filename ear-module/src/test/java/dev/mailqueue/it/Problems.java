package dev.mailqueue.it;

import org.assertj.core.api.SoftAssertions;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every refusal of the server must look like (RFC 9457): the status, an
 * {@code application/problem+json} body whose {@code status} agrees and that has a title, the field at
 * fault named in {@code errors} where there is one, and nothing of the server's inside: no exception
 * class, stack frame or container message.
 */
final class Problems {

    /** Tell-tales of a stack trace, an exception's text or a container's own message in a body. */
    static final Pattern LEAK = Pattern.compile("(?i)exception|\\tat |\\bat [a-z]+\\.[a-z]|RESTEASY\\d|SRVE\\d|CWW[A-Z]\\d"
            + "|java\\.|jakarta\\.|org\\.eclipse|com\\.ibm|<html|<h1");

    private Problems() {
    }

    /** Asserts a refusal as {@link Problems} describes it; {@code field} null when no field is to be named. */
    static void assertProblem(HttpResponse<String> response, int status, String field) {
        SoftAssertions soft = new SoftAssertions();
        check(soft, "", response.statusCode(), response.headers().firstValue("Content-Type").orElse(null),
                response.body(), status, field);
        soft.assertAll();
    }

    /**
     * Records into {@code soft} whether a response is the refusal expected.
     *
     * @param what        names the request in failure messages
     * @param contentType the response's Content-Type, or null
     */
    @SuppressWarnings("unchecked")
    static void check(SoftAssertions soft, String what, int actualStatus, String contentType, String body, int status,
                      String field) {
        soft.assertThat(actualStatus).as("%s: status (body %s)", what, body).isEqualTo(status);
        soft.assertThat(contentType).as("%s: Content-Type (body %s)", what, body).startsWith("application/problem+json");
        soft.assertThat(body).as("%s: no server internals in the body", what).doesNotContainPattern(LEAK);
        Map<String, Object> problem;
        try {
            problem = QueueApi.jsonObject(body);
        } catch (RuntimeException e) {
            soft.fail("%s: body is not JSON: %s", what, body);
            return;
        }
        soft.assertThat(problem.get("status")).as("%s: problem status", what).isInstanceOf(Number.class);
        if (problem.get("status") instanceof Number n) {
            soft.assertThat(n.intValue()).as("%s: problem status", what).isEqualTo(status);
        }
        soft.assertThat(problem.get("title")).as("%s: title", what).isNotNull();
        if (field != null) {
            List<Map<String, Object>> errors = (List<Map<String, Object>>) problem.get("errors");
            soft.assertThat(errors).as("%s: errors of %s", what, body).isNotNull();
            if (errors != null) {
                soft.assertThat(errors).extracting(e -> e.get("field")).as("%s: fields of %s", what, body).contains(field);
            }
        }
    }

    /** @return the field names a problem body lists */
    @SuppressWarnings("unchecked")
    static List<Object> fields(String body) {
        List<Map<String, Object>> errors = (List<Map<String, Object>>) QueueApi.jsonObject(body).get("errors");
        assertThat(errors).as(body).isNotNull();
        return errors.stream().map(e -> e.get("field")).toList();
    }
}
