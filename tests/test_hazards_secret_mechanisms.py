"""The secret screen's mechanisms, one named test each, on invented examples that are in
neither fresh round (benchmarks/hazards/fresh_round*.py stay a measurement): the value
found past a clause, in seven languages, after a verb of access with no secret word,
spelled, listed, in a config or command shape, in the next turn of the session; and the
look-alikes each mechanism must leave alone."""

from __future__ import annotations

import pytest

from memory_es.formation.hazards import screen
from memory_es.formation.hazards.secrets import credentials_named, redact


def _redacted(text: str, *secrets: str) -> tuple[str, ...]:
    said, kinds = redact(text)
    for secret in secrets:
        assert secret not in said, said
    return kinds


# -- the value past intervening words -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("the password the locksmith wrote on the invoice was Quartz!Pine6", "Quartz!Pine6"),
        ("the PIN that my bank mailed me in March is 6390", "6390"),
        ("la password che mi ha dato il tecnico è Spigola_41", "Spigola_41"),
        ("het wachtwoord dat de school stuurde is Krokus#88", "Krokus#88"),
        ("a senha que o porteiro me deu é Mandacaru7", "Mandacaru7"),
    ],
)
def test_a_clause_between_the_secret_word_and_its_value_is_read_past(
    text: str, secret: str
) -> None:
    assert _redacted(text, secret)


def test_a_weaker_word_reaches_past_a_clause_only_for_a_value_closing_it() -> None:
    assert _redacted("the code my uncle set on the shed is 5078", "5078") == ("one_time_code",)
    assert redact("the code I wrote last month is 1200 lines")[1] == ()


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("mi contraseña actual es Berenjena_9", "Berenjena_9"),
        ("la mia password attuale è Ciambella#3", "Ciambella#3"),
        ("mein Passwort ist jetzt Hagebutte!4", "Hagebutte!4"),
    ],
)
def test_an_adjective_or_a_filler_after_the_secret_word_is_read_past(
    text: str, secret: str
) -> None:
    assert _redacted(text, secret)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("the PIN, unless they changed it, is 2046", "2046"),
        ("my password — don't laugh — is Wombat!Hug3", "Wombat!Hug3"),
        ("the safe code (the new one, not the old one) is 5531", "5531"),
        ("passcode (keep it to yourself): 661093", "661093"),
    ],
)
def test_an_aside_between_the_secret_word_and_its_clause_is_read_past(
    text: str, secret: str
) -> None:
    assert _redacted(text, secret)


def test_prose_inside_an_aside_is_no_value() -> None:
    text = "the password (as always) was forgotten by Friday"
    assert redact(text) == (text, ())


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password... Pelican_Dive3", "Pelican_Dive3"),
        ("the pin -- 7290", "7290"),
        ("my wifi password? ok it's Sandpiper44", "Sandpiper44"),
        ("my pinnumber is 3158", "3158"),
        ("le mot-de-passe est Cigogne_12", "Cigogne_12"),
        ("a sehna do email é Tucano_Bico3", "Tucano_Bico3"),
    ],
)
def test_pauses_marks_and_spellings_of_the_secret_word_are_read(text: str, secret: str) -> None:
    assert _redacted(text, secret)


def test_an_emoji_between_the_word_and_its_verb_is_read_past() -> None:
    assert _redacted("my pin 🤫 is 7023", "7023") == ("pin",)


# -- secret words in other languages and with typos ---------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("o código da garagem é 4127", "4127"),
        ("de code van het slot is 8306", "8306"),
        ("il codice del lucchetto è 9051", "9051"),
        ("der Torcode ist 2739", "2739"),
        ("el código de acceso es 6218", "6218"),
        ("ma clé wifi est Cerisier-44", "Cerisier-44"),
        ("la chiave del wifi è Basilico_2023", "Basilico_2023"),
        ("mijn wifi-sleutel is Dijkgraaf9", "Dijkgraaf9"),
    ],
)
def test_the_code_of_a_door_gate_or_safe_and_a_wifi_key_are_read_in_six_languages(
    text: str, secret: str
) -> None:
    assert _redacted(text, secret)


@pytest.mark.parametrize("typo", ["pinn", "ppin"])
def test_a_pin_with_a_doubled_letter_is_still_a_pin(typo: str) -> None:
    assert _redacted(f"my {typo} is 3860", "3860") == ("pin",)


def test_a_typo_of_passwd_names_the_password() -> None:
    assert _redacted("the paswd of the nas is Gannet!77", "Gannet!77")


# -- every value of a list -----------------------------------------------------------------


def test_a_labelled_list_of_pins_loses_every_value() -> None:
    kinds = _redacted("the PINs: visa 8123, mastercard 4470, savings 3391", "8123", "4470", "3391")
    assert len(kinds) == 3


def test_recovery_codes_named_in_another_language_lose_every_value() -> None:
    assert _redacted("Wiederherstellungscodes: 5512-7730, 9081-2264", "5512-7730", "9081-2264")


def test_values_said_before_a_plural_combination_word_are_all_redacted() -> None:
    assert _redacted("the bikes use 417, 902 and 336 as combos", "417", "902", "336")


def test_a_numbered_list_of_codes_loses_every_value_and_keeps_its_numbers() -> None:
    said, kinds = redact("my backup codes:\n1. 6620-1187\n2. 9034-5512")
    assert kinds == ("one_time_code",) * 2
    assert said == "my backup codes:\n1. [redacted:one_time_code]\n2. [redacted:one_time_code]"


def test_a_list_ends_where_another_secret_word_names_its_own_value() -> None:
    said, kinds = redact("My password is abc123xyz, and my PIN is 4821.")
    assert said == "My password is [redacted:password], and my PIN is [redacted:pin]."
    assert kinds == ("password", "pin")


def test_what_a_pin_is_for_does_not_end_its_list() -> None:
    kinds = _redacted("the PINs are 4410 for the debit card and 7782 for the credit card", "7782")
    assert kinds == ("pin", "pin")


def test_codes_of_letters_and_digits_in_groups_are_all_redacted() -> None:
    assert _redacted("recovery codes: Q4T8-2WX9, Z7R1-6MN3", "Q4T8-2WX9", "Z7R1-6MN3")


# -- spelled digits ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("my code is three nine nine one", "three nine nine one"),
        ("the gate code is double seven two four", "double seven two four"),
        ("my pin is nought six one one", "nought six one one"),
        ("the alarm code is sixteen fifty eight", "sixteen fifty eight"),
        ("o código do cadeado é sete um quatro dois", "sete um quatro dois"),
        ("de code van de poort is vijf twee negen nul", "vijf twee negen nul"),
    ],
)
def test_spelled_digits_after_a_code_word_are_one_value(text: str, secret: str) -> None:
    said, kinds = redact(text)
    assert kinds and secret.split()[1] not in said


def test_a_spelled_code_after_a_verb_of_access_is_one_value() -> None:
    said, kinds = redact("the safe opens on twenty one nine fourteen")
    assert kinds == ("pin",) and "nine" not in said


# -- keyword-less codes after a verb of access --------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("to silence the alarm, type 3317", "3317"),
        ("to get into the shed dial 5260 on the padlock", "5260"),
        ("we get into the flat by keying 7714 at the entrance", "7714"),
        ("the alarm switches off with 6095", "6095"),
        ("the lockbox is 2846", "2846"),
    ],
)
def test_a_code_after_a_purpose_of_access_is_redacted_with_no_secret_word(
    text: str, secret: str
) -> None:
    assert _redacted(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "to get into college I studied and scored 1450",
        "to open the jar, twist the lid 180 degrees",
        "the garage door opened by itself at 2130",
        "to enter the contest, type your name and 500 words",
    ],
)
def test_a_number_after_a_purpose_with_nothing_to_open_is_kept(text: str) -> None:
    assert redact(text) == (text, ())


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Dial 6604 at the side gate", "6604"),
        ("use 1187 for the shed", "1187"),
        ("press 9043 then OK on the alarm panel", "9043"),
    ],
)
def test_a_verb_of_entry_and_a_code_beside_a_thing_that_opens_are_redacted(
    text: str, secret: str
) -> None:
    assert _redacted(text, secret)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("the back door: 7719", "7719"),
        ("alarm 3315, shed 8862", "3315"),
        ("the bike lock is set to 604", "604"),
    ],
)
def test_a_thing_that_opens_said_with_its_code_loses_the_code(text: str, secret: str) -> None:
    assert _redacted(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "we boarded at gate 116 after a long wait",
        "the gate 2018 edition was better",
        "my alarm 0645 woke the whole house",
        "enter 1990 as your birth year in the form",
        "I used 2500 euros for the garage roof",
    ],
)
def test_a_number_beside_a_thing_that_opens_but_not_its_code_is_kept(text: str) -> None:
    assert redact(text) == (text, ())


# -- command-line and config shapes --------------------------------------------------------


def test_a_secret_parameter_joined_by_an_ampersand_is_redacted() -> None:
    assert _redacted("the odbc string is uid=report&pwd=Salmon42Run;", "Salmon42Run")


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("sqlcmd -S reports -U etl -P Gazelle!31", "Gazelle!31"),
        ("ssh-keygen -t ed25519 -N Bobcat_Key4 -f id", "Bobcat_Key4"),
        ('sudo -S <<< "Mandrill88" systemctl stop app', "Mandrill88"),
        ("echo 'Okapi_Stripe2' | passwd --stdin deploy", "Okapi_Stripe2"),
        ("net user backup Vicuna!70 /add", "Vicuna!70"),
        ("htpasswd -b /etc/nginx/.htpasswd ops Tamarin55", "Tamarin55"),
        ('$env:API_TOKEN = "Kinkajou2025"', "Kinkajou2025"),
        ("gcloud config set auth.client_secret Pangolin_Scale8", "Pangolin_Scale8"),
    ],
)
def test_a_positional_secret_of_a_command_or_a_shell_is_redacted(text: str, secret: str) -> None:
    assert _redacted(text, secret)


def test_a_code_identifier_naming_a_secret_keeps_a_plain_word_after_it() -> None:
    text = "the session_id field is printed in the log"
    assert redact(text) == (text, ())


def test_a_password_keeps_its_own_closing_mark() -> None:
    said, _ = redact("type Marlin88! to log in")
    assert "Marlin88" not in said and "!" not in said


def test_a_short_passphrase_of_plain_words_is_redacted() -> None:
    assert _redacted("the passphrase is velvet tractor orbit", "velvet tractor orbit")
    assert redact("the passphrase is three random words")[1] == ()


# -- the next turn of the session ----------------------------------------------------------


def test_a_lock_combination_named_opens_screening_for_the_next_turn() -> None:
    opens = credentials_named("can you remember the combination to my suitcase")
    assert opens == ("pin",)
    said, kinds = redact("21 07 44", context=opens)
    assert kinds and "44" not in said


def test_a_combination_of_things_opens_no_screening() -> None:
    assert credentials_named("it was a combination of bad luck and rain") == ()


def test_a_question_about_a_credentials_time_opens_no_screening() -> None:
    assert credentials_named("When did you last change your password?") == ()


def test_a_number_inside_a_sentence_of_the_next_turn_is_no_answer() -> None:
    opens = credentials_named("what's the PIN of the card?")
    assert redact("I think 5571", context=opens)[1]
    for text in ("In 2021 we moved to Porto.", "I use KeePass 2023 edition at home"):
        assert redact(text, context=opens) == (text, ())


# -- look-alikes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "the combination of pasta and 300 grams of cheese is heavy",
        "my booking code is KL1841",
        "the password my school requires is at least 10 characters",
        "I changed the PIN on my card in 2022",
        "la nueva contraseña es más segura",
        "the alarm turns off with a snooze button",
    ],
)
def test_prose_with_a_secret_word_and_a_number_keeps_its_text(text: str) -> None:
    assert screen(text).text == text


# -- the classes of the fresh rounds' last misses (invented examples of each) -------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("het hek gaat open met 2958", "2958"),
        ("le portail s'ouvre avec 7305", "7305"),
        ("el garaje se abre con 6142", "6142"),
        ("la porta del garage si apre con 4817", "4817"),
        ("o cadeado abre com 903", "903"),
        ("die Haustür öffnet sich mit 3862", "3862"),
        ("the lockbox unlocks with 5521 after dark", "5521"),
    ],
)
def test_a_door_that_opens_with_a_code_in_seven_languages(text: str, secret: str) -> None:
    assert _redacted(text, secret) == ("pin",)


@pytest.mark.parametrize(
    "text",
    [
        "the exhibition opens with 240 paintings from the collection",
        "la mostra si apre con 120 fotografie",
        "The season opened with 1983 footage of the final",
    ],
)
def test_a_thing_that_opens_with_a_count_is_no_code(text: str) -> None:
    assert redact(text) == (text, ())


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "services:\n  db:\n    environment:\n      MYSQL_ROOT_PASSWORD: Pelican_204",
            "Pelican_204",
        ),
        ("settings.toml: secret_key: Qx81rTb0pL3mNw", "Qx81rTb0pL3mNw"),
        ('hostapd.conf: wpa_passphrase="Fennel-Dune-52"', "Fennel-Dune-52"),
    ],
)
def test_a_config_pair_whose_name_names_a_secret_under_a_label_or_a_block(
    text: str, secret: str
) -> None:
    assert _redacted(text, secret)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('sshpass -p "Badger31Hill" ssh pi@garden', "Badger31Hill"),
        ("net use Y: \\\\fileserver\\photos Tundra58 /user:family", "Tundra58"),
        ("net use \\\\fileserver\\photos /user:family Tundra58", "Tundra58"),
    ],
)
def test_a_positional_password_of_a_command_quoted_or_not(text: str, secret: str) -> None:
    assert _redacted(text, secret) == ("command_line",)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("mot de pase : Groseille#8", "Groseille#8"),
        ("la parola chiave del modem è Ortica_55", "Ortica_55"),
        ("a palavra-passe da conta é Caju-Verde-6", "Caju-Verde-6"),
        ("mitt lösenord är Hjortron77", "Hjortron77"),
    ],
)
def test_password_words_of_more_languages_and_a_typo_of_a_phrase(text: str, secret: str) -> None:
    assert _redacted(text, secret) == ("password",)


def test_a_pause_after_the_verb_then_the_value() -> None:
    assert _redacted("the router password is... Marigold42", "Marigold42") == ("password",)
    assert _redacted("PIN is… 7720", "7720")
    assert redact("my password is... well, I forgot it")[1] == ()


def test_an_elided_article_or_a_contracted_subject_before_the_value() -> None:
    assert _redacted("le code de l'alarme d'entrée est 4C19", "4C19")
    assert _redacted("the PIN we'll use for the shared card is 6604", "6604")


def test_an_aside_closed_by_a_colon_before_the_value() -> None:
    assert _redacted("the pin, written small so I don't forget: seven one three eight", "seven one")
    assert _redacted("my password, in case you need it: Lupin!72", "Lupin!72")


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("keep these recovery codes: 4471 0923, 6608 1175, 3390 2214", ("0923", "1175", "2214")),
        ("backup codes (print them): 12-40-77, 58-03-91, 66-29-14", ("12-40-77", "66-29-14")),
        ("codes de récupération : 731904, 228461, 590037", ("731904", "590037")),
        ("the codes for the bike locks are 412, 877 and 305", ("412", "877", "305")),
    ],
)
def test_every_value_of_a_list_of_grouped_codes(text: str, secrets: tuple[str, ...]) -> None:
    assert _redacted(text, *secrets)


def test_labelled_network_and_opener_values_in_a_slash_separated_line() -> None:
    said, _ = redact("wifi: Heron#Lake8 / alarm: 3177 / side gate: 9042")
    assert "Heron#Lake8" not in said and "3177" not in said and "9042" not in said
    assert redact("wifi: 5GHz is faster than the old one") == (
        "wifi: 5GHz is faster than the old one",
        (),
    )


@pytest.mark.parametrize(
    ("asked", "answer", "secret"),
    [
        ("what's the code?", "3316", "3316"),
        ("what's the login for the printer?", "admin / Kestrel29", "Kestrel29"),
        ("can you send me your credentials?", "root / Marten!4", "Marten!4"),
    ],
)
def test_a_bare_code_or_a_login_asked_for_opens_the_next_turn(
    asked: str, answer: str, secret: str
) -> None:
    opens = credentials_named(asked)
    assert opens
    said, _ = redact(answer, context=opens)
    assert secret not in said


@pytest.mark.parametrize(
    "text",
    ["what's the code of conduct?", "what's the login page?", "can you send me the code?"],
)
def test_a_code_or_a_login_not_asked_for_itself_opens_nothing(text: str) -> None:
    assert credentials_named(text) == ()


# -- real conversation's look-alikes (invented examples of each class) --------------------


@pytest.mark.parametrize(
    "text",
    [
        "There are some key differences: **Catalog size**: BrightHub has more vendors.",
        "Key Benefits of Lumora's TikTok Campaigns",
        "the key is to keep a 16GB card spare",
        "Key card access, 24-hour reception and a safe",
        "for key in walk_tree(root_dir): print(key)",
        "I got a KeyError on the field_name column",
    ],
)
def test_key_as_a_word_of_prose_or_code_takes_no_name_or_identifier(text: str) -> None:
    assert redact(text) == (text, ())


def test_a_weaker_word_still_takes_a_value_that_looks_chosen() -> None:
    assert _redacted("log in as admin with Qw9!rtz", "Qw9!rtz") == ("password",)
    assert _redacted("the key is 4f8a9c2e1b", "4f8a9c2e1b")


@pytest.mark.parametrize(
    "text",
    [
        "user/license limits and pricing",
        "switch between normal/wide angle",
        "the login covers user/group settings",
    ],
)
def test_two_words_joined_by_a_slash_are_no_login_pair(text: str) -> None:
    assert redact(text) == (text, ())


def test_a_login_pair_with_a_chosen_password_is_still_read() -> None:
    assert _redacted("login: bob/Maple!71", "Maple!71")


@pytest.mark.parametrize(
    "text",
    [
        "I'll plant the seed now and hope the small seed is the one that grows, like the rest",
        "my garden seed list: tomato, basil, carrot, bean, pea, kale, leek, chard, onion, "
        "squash, radish, melon",
        "ornate luminous baroque crimson filigree cathedral shimmering velvet translucent "
        "marble gothic spires",
        "points made points allowed rebounds per game assists per game steals per game "
        "blocks per game",
    ],
)
def test_prose_lists_and_headers_are_no_seed_phrase(text: str) -> None:
    assert redact(text) == (text, ())


def test_a_seed_phrase_is_still_read_with_or_without_its_word() -> None:
    phrase = "apple arrow badge bamboo basket beach bitter blanket border bottle brave bread"
    assert _redacted(f"my seed phrase is {phrase}", "bamboo basket") == ("seed_phrase",)
    assert _redacted(phrase, "bamboo basket") == ("seed_phrase",)


@pytest.mark.parametrize(
    "text",
    [
        "id = Column(Integer, primary_key=True, index=True)",
        "class SignIn(BaseModel):\n    email: str\n    password: str",
        "const tokenizer = new Tokenizer();",
        "=== Key === World = Vellan",
        "Auth-Type := Accept",
        'Third, here is a secret: "judges skim the summary first," said the coach',
    ],
)
def test_code_literals_types_calls_and_sayings_are_no_config_value(text: str) -> None:
    assert redact(text) == (text, ())


@pytest.mark.parametrize(
    "text",
    [
        "the order ids were 3f2a9b7c-1d4e-4f5a-8b6c-0a1b2c3d4e5f and a1b2c3d4e5f60718293a4b5c",
        "summarize https://example.org/read/x81/?levelId=qz8rk2mfe19lp04t7b1wd5xy",
        "MAC Address D4:35:1D:15:34:C6",
        "ISBN 978-0-306-40615-7 on page 4",
        "Percentile 5 10 15 20 25 30 40 50 60 70",
    ],
)
def test_identifiers_addresses_and_rows_of_numbers_are_no_secret(text: str) -> None:
    assert redact(text) == (text, ())


def test_a_key_named_as_one_or_a_card_in_groups_is_still_read() -> None:
    assert _redacted("api key: a1b2c3d4e5f60718293a4b5c", "a1b2c3d4e5f60718293a4b5c")
    assert _redacted("card 4111 1111 1111 1111", "4111 1111") == ("card_number",)


def test_a_long_explanation_mentioning_passwords_opens_no_screening() -> None:
    explanation = (
        "To set up the router, open its page and sign in. You'll be asked for a username "
        "and password; the defaults are printed on the label. Then choose a strong "
        "password, update the firmware, and restart it. "
        + "After that, the settings page shows the bands and the connected devices. "
        * 4
    )
    assert credentials_named(explanation) == ()
    assert credentials_named("Connect the sensor to the PWM pins on the board.") == ()
    assert credentials_named("Sure. So, what's the wifi password?") == ("password",)


@pytest.mark.parametrize("answer", ["I have the 64GB model", "it's an RT-AX58U", "L298N board"])
def test_a_quantity_a_model_or_a_name_is_no_bare_answer(answer: str) -> None:
    assert redact(answer, context=("password",)) == (answer, ())
    assert redact(answer, context=("pin",)) == (answer, ())


@pytest.mark.parametrize(
    "text",
    [
        "headers: {'Api-Token': process.env.WEATHER_API_TOKEN}",
        "$filters[] = ['key' => '\\_weight', 'value' => 3];",
        "token: session token you get from the login call",
        "orders_handler = OrderStreamHandler(OrderStreamData)",
        "PRIMARY KEY (`OrderID`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
        "the tariff code: 8471300000 covers laptops",
    ],
)
def test_a_name_given_a_code_reference_or_a_sentence_takes_no_value(text: str) -> None:
    assert redact(text) == (text, ())


def test_a_name_given_its_value_is_still_read() -> None:
    assert _redacted("secret: sunshine", "sunshine")
    assert _redacted("APP_TOKEN=c2VydmljZTpXaDFzdGxlIQ==", "c2VydmljZTpXaDFzdGxlIQ==")
    assert _redacted('DB_PASSWORD="Kx(4)vq!"', "Kx(4)vq!")
