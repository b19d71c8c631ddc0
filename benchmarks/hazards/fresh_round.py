"""The fresh round of secrets: written, committed and measured on the base code
BEFORE any rule for them existed (docs/hazards.md reports before and after).

All of our own writing; nothing from a dataset. Each class of the issue has its cases:
secret words with typos, in other languages, with words between the word and its value,
lists of values, digits spelled out, codes after a verb of access with no secret word,
command-line and config shapes with a positional secret, and two-turn conversations in
which one turn asks for or names a credential and the next gives it bare. The benign
look-alikes are sentences that must keep their text and still form a belief.
"""

from __future__ import annotations

from dataclasses import dataclass

USER, ASSISTANT = "user", "assistant"


@dataclass(frozen=True)
class FreshSecret:
    kind: str  # the class
    turns: tuple[tuple[str, str], ...]  # (role, text), said in order in one session
    secrets: tuple[str, ...]  # each must be absent from every stored event and belief


def _one(kind: str, text: str, *secrets: str) -> FreshSecret:
    return FreshSecret(kind, ((USER, text),), secrets)


def _two(kind: str, first: tuple[str, str], second: str, *secrets: str) -> FreshSecret:
    return FreshSecret(kind, (first, (USER, second)), secrets)


_TYPO = "typo"
_LANG = "language"
_BETWEEN = "words_between"
_LIST = "list"
_SPELLED = "spelled_digits"
_ACCESS = "access_verb"
_SHAPE = "command_or_config"
_TURNS = "cross_turn"

FRESH_SECRETS: tuple[FreshSecret, ...] = (
    # -- typos in the secret word
    _one(_TYPO, "my pasword is Tangerine#88", "Tangerine#88"),
    _one(_TYPO, "the passwrd for the router is gr33nT34pot", "gr33nT34pot"),
    _one(_TYPO, "PIN nuber: 6620", "6620"),
    _one(_TYPO, "my pincode is 3971", "3971"),
    _one(_TYPO, "Wifi pasword = SunnyDay2024", "SunnyDay2024"),
    _one(_TYPO, "the passcdoe for the shed is 5839", "5839"),
    _one(_TYPO, "my paswrod is Biscuit!42", "Biscuit!42"),
    _one(_TYPO, "my pssword is Maple-Leaf-09", "Maple-Leaf-09"),
    _one(_TYPO, "the pasword to the nas is orchid.7721", "orchid.7721"),
    _one(_TYPO, "passowrd: Kestrel_3344", "Kestrel_3344"),
    _one(_TYPO, "my bank pni is 8152", "8152"),
    _one(_TYPO, "the pin numbr for the card is 2297", "2297"),
    _one(_TYPO, "Password for the email is... Lighthouse77", "Lighthouse77"),
    _one(_TYPO, "the wifi passwrod? its Noodle-Cat-5", "Noodle-Cat-5"),
    _one(_TYPO, "my pasword iz Zebra2Crossing", "Zebra2Crossing"),
    # -- other languages
    _one(_LANG, "mon mot de passe est Chouette2023!", "Chouette2023!"),
    _one(_LANG, "Le code PIN de ma carte est 4410", "4410"),
    _one(_LANG, "le mot de passe du wifi c'est Baguette-Rouge-7", "Baguette-Rouge-7"),
    _one(_LANG, "la contraseña de mi correo es Girasol_1987", "Girasol_1987"),
    _one(_LANG, "mi clave del banco es 7305", "7305"),
    _one(_LANG, "La contraseña del wifi: Paella4Todos", "Paella4Todos"),
    _one(_LANG, "Mein Passwort lautet Hundehütte9!", "Hundehütte9!"),
    _one(_LANG, "Das WLAN-Passwort ist Kartoffel#2020", "Kartoffel#2020"),
    _one(_LANG, "Der WLAN-Schlüssel ist Bergsee-Blau-44", "Bergsee-Blau-44"),
    _one(_LANG, "mein Kennwort: Sonnenblume77", "Sonnenblume77"),
    _one(_LANG, "Die PIN meiner Karte ist 9034", "9034"),
    _one(_LANG, "minha senha é Jabuticaba@12", "Jabuticaba@12"),
    _one(_LANG, "a senha do wifi é praia2praia", "praia2praia"),
    _one(_LANG, "o PIN do cartão é 6718", "6718"),
    _one(_LANG, "la mia password è Gelato_Limone5", "Gelato_Limone5"),
    _one(_LANG, "la parola d'ordine è Colosseo1990", "Colosseo1990"),
    _one(_LANG, "il codice PIN del bancomat è 2843", "2843"),
    _one(_LANG, "mijn wachtwoord is Tulpen!Veld8", "Tulpen!Veld8"),
    _one(_LANG, "de pincode van mijn pas is 5126", "5126"),
    _one(_LANG, "het wifi-wachtwoord is Fietsbel2022", "Fietsbel2022"),
    # -- words between the secret word and its value
    _one(_BETWEEN, "the PIN I set is 4821", "4821"),
    _one(_BETWEEN, "my password for the bank these days is Orbit!Lane6", "Orbit!Lane6"),
    _one(_BETWEEN, "the password I picked for my laptop yesterday is Fennel&Sage3", "Fennel&Sage3"),
    _one(_BETWEEN, "the PIN my wife chose for the new card is 1592", "1592"),
    _one(_BETWEEN, "the wifi password we ended up using at the cabin is PineCone88", "PineCone88"),
    _one(_BETWEEN, "the passcode I always use for the tablet is 070911", "070911"),
    _one(_BETWEEN, "the password my boss gave me for the VPN was Copper-Fox-12", "Copper-Fox-12"),
    _one(_BETWEEN, "the PIN that I use at the ATM is 8306", "8306"),
    _one(_BETWEEN, "the password of the old account that I still use is Ravioli_55", "Ravioli_55"),
    _one(_BETWEEN, "the pin they sent me in the letter is 4470", "4470"),
    _one(_BETWEEN, "my password on the work laptop right now is Glacier$Mint4", "Glacier$Mint4"),
    _one(_BETWEEN, "the door code my landlord texted me is 2468", "2468"),
    # -- every value of a list
    _one(
        _LIST,
        "recovery codes: 1111-2222, 3333-4444, 5555-6666",
        "1111-2222",
        "3333-4444",
        "5555-6666",
    ),
    _one(
        _LIST,
        "my backup codes are 83920174, 55120938 and 90017263",
        "83920174",
        "55120938",
        "90017263",
    ),
    _one(
        _LIST, "the PINs are 4410 for the debit card and 7782 for the credit card", "4410", "7782"
    ),
    _one(_LIST, "passwords: Alpha#11, Bravo#22, Charlie#33", "Alpha#11", "Bravo#22", "Charlie#33"),
    _one(
        _LIST,
        "backup codes 4829-1103 / 5592-0071 / 6630-2248",
        "4829-1103",
        "5592-0071",
        "6630-2248",
    ),
    _one(_LIST, "the codes for the lockers are 318, 552 and 907", "318", "552", "907"),
    _one(_LIST, "my passwords are Winter2020! and then Summer2021!", "Winter2020!", "Summer2021!"),
    _one(
        _LIST,
        "2FA recovery codes: a1b2-c3d4 e5f6-g7h8 i9j0-k1l2",
        "a1b2-c3d4",
        "e5f6-g7h8",
        "i9j0-k1l2",
    ),
    _one(_LIST, "the alarm code is 5521 and the gate code is 8809", "5521", "8809"),
    _one(_LIST, "PIN for the card is 1357, for the phone 2468", "1357", "2468"),
    # -- digits spelled out
    _one(_SPELLED, "my PIN is four seven two one", "four seven two one"),
    _one(_SPELLED, "the door code is six oh four eight", "six oh four eight"),
    _one(_SPELLED, "mon code PIN est quatre sept deux un", "quatre sept deux un"),
    _one(_SPELLED, "mi PIN es cinco tres nueve cero", "cinco tres nueve cero"),
    _one(_SPELLED, "meine PIN ist drei acht eins sechs", "drei acht eins sechs"),
    _one(_SPELLED, "o meu PIN é dois nove sete quatro", "dois nove sete quatro"),
    _one(_SPELLED, "il mio PIN è otto due sei uno", "otto due sei uno"),
    _one(_SPELLED, "mijn pincode is negen vier twee zeven", "negen vier twee zeven"),
    _one(_SPELLED, "the alarm code is nine-nine-one-two", "nine-nine-one-two"),
    _one(_SPELLED, "the pin is Five Three Oh Seven", "Five Three Oh Seven"),
    _one(
        _SPELLED,
        "the safe combination is twelve thirty four fifty six",
        "twelve thirty four fifty six",
    ),
    _one(_SPELLED, "my code is zero eight one five", "zero eight one five"),
    # -- keyword-less codes after a verb of access
    _one(_ACCESS, "the gate opens with 7741", "7741"),
    _one(_ACCESS, "disarm with 5173 when you come in", "5173"),
    _one(_ACCESS, "unlock it with 2580", "2580"),
    _one(_ACCESS, "the 3 digits on the back are 331", "331"),
    _one(_ACCESS, "you can get into the garage by punching in 9104", "9104"),
    _one(_ACCESS, "the padlock opens on 0-4-7", "0-4-7"),
    _one(_ACCESS, "to turn off the alarm type 6602", "6602"),
    _one(_ACCESS, "the lockbox opens with 3819", "3819"),
    _one(_ACCESS, "punch in 4455 at the keypad", "4455"),
    _one(_ACCESS, "my phone unlocks with 190284", "190284"),
    _one(_ACCESS, "the three numbers on the back of my card are 902", "902"),
    _one(_ACCESS, "key in 8023 and the front door opens", "8023"),
    _one(_ACCESS, "the bike lock opens with 5-5-2-1", "5-5-2-1"),
    # -- command-line and config shapes with a positional secret
    _one(_SHAPE, "run redis-cli -a Qz8mRedisPw01 ping", "Qz8mRedisPw01"),
    _one(_SHAPE, "I zipped it with zip -P Hermit42 backup.zip notes/", "Hermit42"),
    _one(_SHAPE, "echo Falcon9Deploy | sudo -S systemctl restart nginx", "Falcon9Deploy"),
    _one(_SHAPE, "mysql -uroot -pMarmalade77 shop", "Marmalade77"),
    _one(_SHAPE, "connect with app_user:Tundra55pw@db.internal:5432/orders", "Tundra55pw"),
    _one(_SHAPE, "the config has <password>Glimmer2024</password> in it", "Glimmer2024"),
    _one(_SHAPE, "my .pgpass line is db.internal:5432:orders:app:Quokka#61", "Quokka#61"),
    _one(_SHAPE, "in config.yaml I wrote password: Harbor-Light-3", "Harbor-Light-3"),
    _one(_SHAPE, "settings.ini has\npassword = Lantern99\nuser = ops", "Lantern99"),
    _one(_SHAPE, "smbclient //nas/share -U alice%Ferret88pw", "Ferret88pw"),
    _one(_SHAPE, "sshpass -p Nebula7Root ssh root@10.0.0.4", "Nebula7Root"),
    _one(_SHAPE, "curl -u deploy:Cobalt77x https://ci.local/api", "Cobalt77x"),
    _one(_SHAPE, "openssl enc -aes-256-cbc -k Pelican22secret -in a.txt", "Pelican22secret"),
    _one(_SHAPE, "7z a -pMango2025 archive.7z docs", "Mango2025"),
    _one(_SHAPE, "unzip -P Walrus31 photos.zip", "Walrus31"),
    _one(_SHAPE, '<add key="DbPassword" value="Truffle88!" />', "Truffle88!"),
    _one(_SHAPE, "psql postgresql://reporting:Basil4Pesto@10.2.0.9/stats", "Basil4Pesto"),
    _one(_SHAPE, "the pgpass file: *:*:*:postgres:Ocelot2021", "Ocelot2021"),
    _one(_SHAPE, "wifi.conf:\n  ssid: HomeNet\n  psk: Crocus-Field-8", "Crocus-Field-8"),
    _one(_SHAPE, "docker login -u ops -p Gannet64Reg registry.local", "Gannet64Reg"),
    _one(_SHAPE, "the DSN is admin:Parsnip77@mongo-1:27017/app", "Parsnip77"),
    _one(_SHAPE, "[database]\nuser=app\npass=Heron55Grey", "Heron55Grey"),
    # -- two turns: the credential asked for or named, then the bare value
    _two(_TURNS, (USER, "what's the wifi password?"), "it's Pumpkin-Spice-31", "Pumpkin-Spice-31"),
    _two(_TURNS, (ASSISTANT, "Could you send me the PIN?"), "4821", "4821"),
    _two(_TURNS, (ASSISTANT, "What PIN did you set for the card?"), "Walnut77!", "Walnut77!"),
    _two(
        _TURNS,
        (USER, "I need to give you my bank password."),
        "ok it is Mistletoe2023",
        "Mistletoe2023",
    ),
    _two(_TURNS, (ASSISTANT, "What is the door code?"), "7719", "7719"),
    _two(
        _TURNS,
        (USER, "remind me, what was the alarm code again"),
        "oh wait, I remember: 3307",
        "3307",
    ),
    _two(_TURNS, (ASSISTANT, "Please enter the verification code we sent."), "829104", "829104"),
    _two(
        _TURNS,
        (USER, "the wifi password is on the fridge, let me read it"),
        "Sparrow_Nest_14",
        "Sparrow_Nest_14",
    ),
    _two(
        _TURNS,
        (ASSISTANT, "What's the passcode for your phone?"),
        "two five eight zero",
        "two five eight zero",
    ),
    _two(
        _TURNS, (USER, "quel est le mot de passe du wifi ?"), "c'est Croissant2022", "Croissant2022"
    ),
    _two(_TURNS, (USER, "¿cuál es la contraseña?"), "es Tortilla-88", "Tortilla-88"),
    _two(_TURNS, (USER, "Wie ist das WLAN-Passwort?"), "Bratwurst#19", "Bratwurst#19"),
    _two(
        _TURNS,
        (ASSISTANT, "Which password do you use for the NAS?"),
        "the same as always, Orca-Song-2",
        "Orca-Song-2",
    ),
    _two(_TURNS, (USER, "I'll tell you the combination for the safe"), "36-12-48", "36-12-48"),
    _two(_TURNS, (ASSISTANT, "What's the CVV on the back?"), "it's 418", "418"),
    _two(_TURNS, (USER, "here's my recovery code"), "5831-2207-9914", "5831-2207-9914"),
    _two(_TURNS, (USER, "what's the login for the router?"), "admin / Chestnut42", "Chestnut42"),
    _two(_TURNS, (ASSISTANT, "What is your PIN?"), "I think 0619", "0619"),
    _two(_TURNS, (USER, "my pasword for the tablet, let me think"), "Gooseberry5", "Gooseberry5"),
    _two(
        _TURNS,
        (ASSISTANT, "What password should I use for the guest network?"),
        "use Marigold#73",
        "Marigold#73",
    ),
    _two(_TURNS, (USER, "qual é a senha do wifi?"), "é Coqueiro2021", "Coqueiro2021"),
    _two(_TURNS, (USER, "wat is het wachtwoord van de wifi?"), "Molen-Wind-6", "Molen-Wind-6"),
)

# Benign look-alikes: each must keep its text (no redaction) and form a belief. Said as
# one user turn of its own session.
FRESH_BENIGN: tuple[str, ...] = (
    "my password is way too long",
    "I forgot my password again",
    "the password manager is 1Password",
    "I reset my PIN last week because I forgot it",
    "My flight is UA 2381 on March 14.",
    "I was born in 1987.",
    "The dinner cost $84.50 for four of us.",
    "My phone number is 415 555 0172.",
    "I live at 22 Baker Street, zip code 94110.",
    "The meeting is at 14:30 in room 4120.",
    "I ran 5 km in 27 minutes this morning.",
    "I ran 10 kilometers in 52 minutes on Sunday.",
    "My daughter was born on 12 May 2019.",
    "Our apartment is number 3B on the 4th floor.",
    "The train leaves at 7:45 from platform 9.",
    "I paid 1,250 euros for the new bike.",
    "My gym opens at 6 and I usually go at 6:30.",
    "I keep my passwords in a password manager.",
    "I changed my password last month.",
    "My team has 12 engineers and 3 designers.",
    "I bought 3 kilos of apples for 4.20.",
    "The gate opens at 9 on weekdays.",
    "I unlock my phone with my face.",
    "I have two cats and one dog.",
    "My favourite number is 7.",
    "I scored 1480 on the SAT in 2005.",
    "My mot de passe story: I wrote it on a sticky note once, bad idea.",
    "Mi cumpleaños es el 4 de julio.",
    "Ich wohne in Berlin seit 2015.",
    "My grandmother turned 90 in April.",
    "The store on 5th Avenue closes at 21:00.",
    "I drive a 2016 Honda Civic.",
    "The book has 384 pages and I'm on page 211.",
    "My commute is 45 minutes each way.",
    "My hotel room was 1207 last time.",
    "I take bus 38 to work.",
    "I usually sleep 7 hours a night.",
    "My pin board is full of travel photos.",
    "The key to a good risotto is patience.",
    "I need a stronger password policy at work.",
    "My son's locker is on the second floor.",
    "The security code of conduct at my job is strict.",
    "I disarm the tension with jokes.",
    "The kids open the presents at 8 on Christmas morning.",
)
