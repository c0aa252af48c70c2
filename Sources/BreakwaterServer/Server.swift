import CLibevent
import COpenSSL
import BreakwaterCore
