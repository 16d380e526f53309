"""Why a step was not run or didn't work, and why a task didn't end done,
as codes a reader words (the gateway has a sentence per code). The texts
beside them (`why`, `reason`, the task's message) are written for the model
or the log; a person is shown the code's sentence."""

from enum import StrEnum


class Reason(StrEnum):
    # A step refused or failed, by the tasks service's own rules.
    REPEATS_A_STEP = "REPEATS_A_STEP"
    LOGIN_DIDNT_GET_THROUGH = "LOGIN_DIDNT_GET_THROUGH"
    TOO_MANY_CODE_TRIES = "TOO_MANY_CODE_TRIES"
    NO_SUCH_ITEM = "NO_SUCH_ITEM"
    READ_THE_PAGE_FIRST = "READ_THE_PAGE_FIRST"
    BAD_ARGUMENTS = "BAD_ARGUMENTS"
    PAGE_GONE = "PAGE_GONE"
    PERSON_SAID_NO = "PERSON_SAID_NO"
    EXPIRED = "EXPIRED"
    STOPPED = "STOPPED"
    STEP_REFUSED = "STEP_REFUSED"
    STEP_FAILED = "STEP_FAILED"
    # A task's outcome.
    SIGN_IN_REFUSED = "SIGN_IN_REFUSED"
    CODE_NOT_ACCEPTED = "CODE_NOT_ACCEPTED"
    SIGN_IN_UNCLEAR = "SIGN_IN_UNCLEAR"
    PAYMENT_DECLINED = "PAYMENT_DECLINED"
    PAYMENT_NOT_APPROVED = "PAYMENT_NOT_APPROVED"
    PAYMENT_UNKNOWN = "PAYMENT_UNKNOWN"
    APP_ACTION_FAILED = "APP_ACTION_FAILED"
    APP_ACTION_NOT_RUN = "APP_ACTION_NOT_RUN"
    ENTRY_UNCERTAIN = "ENTRY_UNCERTAIN"
    PAYMENT_UNCERTAIN = "PAYMENT_UNCERTAIN"
    APP_ACTION_UNCERTAIN = "APP_ACTION_UNCERTAIN"
    STEP_UNCERTAIN = "STEP_UNCERTAIN"
    NOT_FINISHED = "NOT_FINISHED"
    RUN_FAILED = "RUN_FAILED"
    INTERRUPTED = "INTERRUPTED"
