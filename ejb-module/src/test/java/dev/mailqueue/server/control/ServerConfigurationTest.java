package dev.mailqueue.server.control;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two servers' configurations agree: every setting that liberty/ (server.xml, db/*.xml) and src/wildfly/
 * (*.cli) both define has the same default in each, is read from the same environment variable, and the
 * WildFly configuration binds the resources where {@link ServerResources} looks them up.
 */
class ServerConfigurationTest {

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    private static final Pattern LIBERTY_DEFAULT = Pattern.compile(
            "<variable\\s+name=\"([^\"]+)\"\\s+defaultValue=\"([^\"]*)\"\\s*/>");
    /** An expression without another inside its default (an inner one is read first, then stands as {@code $[name]}). */
    private static final Pattern WILDFLY_EXPRESSION = Pattern.compile("\\$\\{([a-z0-9.\\-]+),env\\.([A-Z0-9_]+):([^{}]*)}");

    @Test
    void wildflyDefaultsEqualLibertyDefaults() throws IOException {
        Map<String, String> server = compare(ROOT.resolve("liberty/server.xml"), ROOT.resolve("src/wildfly/configure.cli"));
        assertThat(server).as("SMTP settings of src/wildfly/configure.cli")
                .containsKeys("mailqueue.smtp.host", "mailqueue.smtp.port", "mailqueue.smtp.timeout.ms",
                        "mailqueue.smtp.envelope-from");
        for (String db : new String[]{"derby", "postgresql", "mariadb"}) {
            compare(ROOT.resolve("liberty/db/" + db + ".xml"), ROOT.resolve("src/wildfly/db-" + db + ".cli"));
        }
        assertThat(compare(ROOT.resolve("liberty/db/postgresql.xml"), ROOT.resolve("src/wildfly/db-postgresql.cli")))
                .containsKeys("mailqueue.db.host", "mailqueue.db.port", "mailqueue.db.name", "mailqueue.db.url",
                        "mailqueue.db.schema", "mailqueue.db.user", "mailqueue.db.pool.max");
    }

    /**
     * @return the settings of the WildFly file; asserts each is read from its environment variable, has one
     *         default there, and, where the Liberty file has the same setting, the same default; and that
     *         every setting of the Liberty file with a default is in the WildFly file too
     */
    private static Map<String, String> compare(Path libertyFile, Path wildflyFile) throws IOException {
        Map<String, String> liberty = new LinkedHashMap<>();
        Matcher l = LIBERTY_DEFAULT.matcher(Files.readString(libertyFile));
        while (l.find()) {
            liberty.put(l.group(1), l.group(2));
        }
        Map<String, String> wildfly = new LinkedHashMap<>();
        String text = Files.readString(wildflyFile);
        // innermost expressions first: a default may hold expressions (mailqueue.db.url: host, port, name)
        for (Matcher w = WILDFLY_EXPRESSION.matcher(text); w.find(); w = WILDFLY_EXPRESSION.matcher(text)) {
            String name = w.group(1);
            String value = w.group(3).replaceAll("\\$\\[([a-z0-9.\\-]+)]", "\\${$1}"); // as Liberty writes a reference
            assertThat(w.group(2)).as("environment variable of %s in %s", name, wildflyFile.getFileName())
                    .isEqualTo(name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
            String earlier = wildfly.putIfAbsent(name, value);
            assertThat(earlier == null ? value : earlier).as("default of %s, written twice in %s", name,
                    wildflyFile.getFileName()).isEqualTo(value);
            text = text.substring(0, w.start()) + "$[" + name + "]" + text.substring(w.end());
        }
        for (Map.Entry<String, String> setting : liberty.entrySet()) {
            String name = setting.getKey();
            if (name.startsWith("mailqueue.smtp.") || name.startsWith("mailqueue.db.")) {
                assertThat(wildfly).as("%s of %s in %s", name, libertyFile.getFileName(), wildflyFile.getFileName())
                        .containsEntry(name, setting.getValue());
            }
        }
        return wildfly;
    }

    /**
     * The default account's session sets the same fixed Angus Mail properties on both servers, SMTPUTF8
     * (RFC 6531, {@code mail.mime.allowutf8}) among them, and the test accounts that prove SMTPUTF8 against
     * Postfix (AddressesIT) set it as the shipped session does.
     */
    @Test
    void bothServersShipTheSameFixedSessionPropertiesWithSmtpUtf8On() throws IOException {
        String serverXml = Files.readString(ROOT.resolve("liberty/server.xml"));
        String session = serverXml.substring(serverXml.indexOf("<mailSession mailSessionID=\"mailqueue\""));
        session = session.substring(0, session.indexOf("</mailSession>"));
        Map<String, String> liberty = new LinkedHashMap<>();
        for (Matcher m = Pattern.compile("<property name=\"([^\"]+)\" value=\"([^\"$]*)\"/>").matcher(session); m.find(); ) {
            liberty.put(m.group(1), m.group(2));
        }
        assertThat(liberty).containsEntry("mail.mime.allowutf8", "true").containsEntry("mail.smtp.sendpartial", "true");
        String cli = Files.readString(ROOT.resolve("src/wildfly/configure.cli"));
        cli = cli.substring(cli.indexOf("/subsystem=mail/mail-session=mailqueue/custom=smtp:add("));
        for (Map.Entry<String, String> property : liberty.entrySet()) {
            assertThat(cli).as("%s in src/wildfly/configure.cli", property.getKey())
                    .contains("\"" + property.getKey() + "\" => \"" + property.getValue() + "\"");
        }
        String it = Files.readString(ROOT.resolve("ear-module/src/test/liberty/configDropins/overrides/integration-tests.xml"));
        String itCli = Files.readString(ROOT.resolve("ear-module/src/test/resources/wildfly-it-accounts.cli"));
        for (String account : new String[]{"utf8", "ascii"}) {
            String itSession = it.substring(it.indexOf("<mailSession mailSessionID=\"" + account + "\""));
            assertThat(itSession.substring(0, itSession.indexOf("</mailSession>")))
                    .contains("<property name=\"mail.mime.allowutf8\" value=\"true\"/>");
            String itCommand = itCli.substring(itCli.indexOf("/subsystem=mail/mail-session=" + account + "/custom=smtp:add("));
            assertThat(itCommand.substring(0, itCommand.indexOf('\n'))).contains("\"mail.mime.allowutf8\" => \"true\"");
        }
    }

    @Test
    void wildflyBindsTheResourcesWhereTheApplicationLooksThemUp() throws IOException {
        String configure = Files.readString(ROOT.resolve("src/wildfly/configure.cli"));
        assertThat(configure).contains("jndi-name=\"java:/mail/mailqueue\"");
        for (String db : new String[]{"derby", "postgresql", "mariadb"}) {
            assertThat(Files.readString(ROOT.resolve("src/wildfly/db-" + db + ".cli")))
                    .contains("--jndi-name=java:/" + ServerResources.DATA_SOURCE);
        }
    }
}
