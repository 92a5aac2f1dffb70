package dev.mailqueue.api;

/** No template of that name is stored (the REST API answers 404). */
public class TemplateNotFoundException extends MailQueueException {

    private static final long serialVersionUID = 1L;

    /** @param name the name asked for */
    public TemplateNotFoundException(String name) {
        super("No template named " + name);
    }
}
